// GetNeighbor: every relation triple touching the given entities of one KG, in both directions.
// `source` is the entity the triple is seen from, `target` its far end; `outgoing` says which reading applies.
UNWIND $ids AS id
MATCH (e:Entity {kg: $kg, id: id})
MATCH (e)-[r]-(o)
WHERE r.rel IS NOT NULL AND o.kg = $kg
WITH e, r, o, startNode(r) = e AS outgoing
WITH e, r, o, outgoing,
     CASE WHEN outgoing THEN e ELSE o END AS h, CASE WHEN outgoing THEN o ELSE e END AS t
RETURN elementId(r) AS rid, outgoing, e.id AS source, o.id AS target,
       h.id AS head, coalesce(h.name, h.id) AS head_name, type(r) AS relation,
       coalesce(r.name, type(r)) AS relation_name, t.id AS tail, coalesce(t.name, t.value, t.id) AS tail_name
