// Cache the chat model's paraphrases for `kgqa bootstrap` (one node per KG, model and prompt).
UNWIND $rows AS row
MERGE (c:BootstrapParaphrase {kg: $kg, key: row.key})
SET c.model = $model, c.path = row.path, c.questions = row.questions, c.written_at = datetime()
