// Recompute a run's LLM totals from all its recorded calls (so repeated flushes never double count); returns them.
// The run store owns the run's status and times; a ledger used without it fills model and started_at once.
MATCH (r:Run {id: $run_id})
OPTIONAL MATCH (r)-[:MADE_CALL]->(c:LLMCall)
WITH r, count(c) AS calls, sum(CASE WHEN c.ok THEN 0 ELSE 1 END) AS failed,
     sum(c.prompt_tokens) AS prompt_tokens, sum(c.completion_tokens) AS completion_tokens,
     sum(c.seconds) AS seconds, sum(c.cost) AS cost, min(c.started_at) AS first_call,
     collect(DISTINCT c.model) AS models
SET r.llm_calls = calls, r.llm_failed_calls = failed, r.prompt_tokens = prompt_tokens,
    r.completion_tokens = completion_tokens, r.llm_seconds = seconds, r.llm_cost = cost,
    r.started_at = coalesce(r.started_at, datetime(first_call)),
    r.model = coalesce(r.model, reduce(s = head(models), m IN tail(models) | s + ', ' + m))
RETURN r.llm_calls AS calls, r.llm_failed_calls AS failed, r.prompt_tokens AS prompt_tokens,
       r.completion_tokens AS completion_tokens, r.llm_seconds AS seconds, r.llm_cost AS cost
