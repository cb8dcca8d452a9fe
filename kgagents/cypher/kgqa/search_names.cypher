// Entity linking: a KG's entity names that join words with underscores (PathQuestion's `frederica_of_mecklenburg`)
// also as words (`kgqa_name`), so a question typed with spaces finds them in the full-text index.
MATCH (e:Entity {kg: $kg})
WHERE e.name CONTAINS '_'
SET e.kgqa_name = replace(e.name, '_', ' ')
