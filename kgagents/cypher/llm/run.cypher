// A run's LLM totals as stored on its (:Run) node.
MATCH (r:Run {id: $run_id})
RETURN r.id AS id, r.model AS model, r.started_at AS started_at, r.llm_calls AS calls, r.llm_failed_calls AS failed,
       r.prompt_tokens AS prompt_tokens, r.completion_tokens AS completion_tokens, r.llm_seconds AS seconds,
       r.llm_cost AS cost
