// Store the chain check's prompt for one KG; prompts of the KG made before its latest load go (their facts and
// examples may name what is no longer there).
OPTIONAL MATCH (old:ChainPrompt {kg: $kg})
WHERE old.loaded_at IS NULL OR $loaded_at IS NULL OR old.loaded_at <> $loaded_at
DELETE old
WITH 1 AS one
MERGE (c:ChainPrompt {kg: $kg, key: $key})
SET c.prompt = $prompt, c.loaded_at = $loaded_at, c.written_at = datetime()
