// Reference-KG entities whose name matches the (Lucene) query, within one KG; the caller scores them.
CALL db.index.fulltext.queryNodes('tool_entity_names', $query, {limit: $limit}) YIELD node, score
WHERE node.kg = $kg
RETURN node.id AS id, node.name AS name, score
