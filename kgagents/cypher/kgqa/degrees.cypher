// Each entity's number of KG triples (`kgqa_degree`), what the path observation's budget counts when it chooses
// which entities of a large end set to walk (kgqa/expand_paths): the graph's other links to an entity (run traces,
// alignments) are not counted, so the choice does not change as runs accumulate. $types: the KG's relationship
// types (null: a triple is told by its `rel` property). Only changed values are written; returns how many.
MATCH (e:Entity {kg: $kg})
WITH e, COUNT { (e)-[r]-() WHERE CASE WHEN $types IS NULL THEN r.rel IS NOT NULL ELSE type(r) IN $types END } AS degree
WHERE e.kgqa_degree IS NULL OR e.kgqa_degree <> degree
SET e.kgqa_degree = degree
RETURN count(e) AS written
