// One level of `kgqa bootstrap`'s path walk, for many topics at once: for each frontier (the end set of one topic's
// path, under its key), the relations leaving it grouped by (relationship type, direction), with how many entities
// they reach and the best $cap of them by support (how many frontier entities reach each one) with their names. A
// topic never re-enters its own paths (as in the observation, kgqa/expand_paths). Entities only: a literal value
// ends a path but is never a topic.
UNWIND $frontiers AS f
UNWIND f.ids AS id
MATCH (e:Entity {kg: $kg, id: id})-[r]-(o)
WHERE r.rel IS NOT NULL AND o.kg = $kg AND o.id <> f.topic
WITH f.key AS key, type(r) AS relation, startNode(r) = e AS forward, o, count(*) AS support
ORDER BY support DESC, o.id
WITH key, relation, forward, collect(o) AS nodes
RETURN key, relation, forward, size(nodes) AS size, [n IN nodes[..$cap] | n.id] AS ends,
       [n IN nodes[..$cap] | coalesce(n.name, n.value, n.id)] AS names,
       [n IN nodes[..$cap] WHERE n:Entity | n.id] AS entities
