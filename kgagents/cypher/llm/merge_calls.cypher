// Record chat-model requests of one run: (:Run {id})-[:MADE_CALL]->(:LLMCall) per row, idempotent by call id.
MATCH (r:Run {id: $run_id})
UNWIND $rows AS row
MERGE (c:LLMCall {id: row.id})
SET c.run_id = $run_id, c.seq = row.seq, c.purpose = row.purpose, c.model = row.model,
    c.prompt_tokens = row.prompt_tokens, c.completion_tokens = row.completion_tokens,
    c.seconds = row.seconds, c.cost = row.cost, c.ok = row.ok, c.error = row.error,
    c.started_at = datetime(row.started_at), c.schema_asked = row.schema_asked,
    c.output_format = row.output_format, c.parsed = row.parsed
MERGE (r)-[:MADE_CALL]->(c)
