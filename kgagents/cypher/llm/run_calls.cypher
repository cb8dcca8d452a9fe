// The recorded chat-model calls of one run, in call order.
MATCH (:Run {id: $run_id})-[:MADE_CALL]->(c:LLMCall)
RETURN c.id AS id, c.seq AS seq, c.purpose AS purpose, c.model AS model, c.prompt_tokens AS prompt_tokens,
       c.completion_tokens AS completion_tokens, c.seconds AS seconds, c.cost AS cost, c.ok AS ok,
       c.error AS error
ORDER BY c.started_at, c.seq
