// A run's recorded LLM calls per purpose: calls, failures, tokens, seconds and cost.
MATCH (:Run {id: $run_id})-[:MADE_CALL]->(c:LLMCall)
RETURN c.purpose AS purpose, count(c) AS calls, sum(CASE WHEN c.ok THEN 0 ELSE 1 END) AS failed,
       sum(c.prompt_tokens + c.completion_tokens) AS tokens, sum(c.seconds) AS seconds, sum(c.cost) AS cost
ORDER BY purpose
