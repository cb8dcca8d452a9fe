// Entity linking, candidates: the entities of one KG whose names or aliases share words with the question (Lucene
// query over the full-text index, best first), with their degree (relation count) and relation types, the context
// the linker disambiguates by. The degree is the KG triples counted by `kgqa prepare` (kgqa/degrees) where it ran:
// a hub candidate's thousands of relationships (and the run traces that collect on it) are then not read per
// question.
CALL db.index.fulltext.queryNodes('kgqa_entity_names', $query, {limit: $search}) YIELD node, score
WITH node, score
WHERE node.kg = $kg
WITH node, score LIMIT $limit
RETURN node.id AS id, coalesce(node.name, node.id) AS name, coalesce(node.aliases, []) AS aliases, score,
       coalesce(node.kgqa_degree, COUNT { (node)-[r]-() WHERE r.rel IS NOT NULL }) AS degree
