// Path observation, one level: for each frontier (the end set of a path, under its key, optionally only over the
// relationship types in its `relations`), the relations leaving it,
// grouped by (relationship type, direction), with the entities they reach ranked by support (how many frontier
// entities reach each one). This is the relation-level aggregation: a hub's 4,000 has_genre triples are one row.
// Topic entities ($exclude) never re-enter a path. Per group: the size, the ids and supports of the best $cap ends
// (enough to expand the next level), the names of the best $named, and how well the names of the best $sample
// ends fit the question ($vector; cosine in [-1, 1], the mean over the ends that have a name vector in
// `embedding`; null when none has or no $vector is given).
UNWIND $frontiers AS f
UNWIND f.ids AS id
MATCH (e:Entity {kg: $kg, id: id})-[r]-(o)
WHERE r.rel IS NOT NULL AND o.kg = $kg AND NOT o.id IN $exclude AND (f.relations IS NULL OR type(r) IN f.relations)
WITH f.key AS key, type(r) AS relation, startNode(r) = e AS forward, o, count(*) AS support
ORDER BY support DESC, o.id
WITH key, relation, forward, collect(o) AS nodes, collect(support) AS supports
WITH key, relation, forward, nodes, supports,
     [n IN nodes[..$sample] WHERE $vector IS NOT NULL AND n.embedding IS NOT NULL | 2 * vector.similarity.cosine(n.embedding, $vector) - 1] AS fits
WITH key, relation, forward, nodes, supports, fits,
     CASE WHEN $full IS NULL OR key + '|' + relation + '|' + CASE WHEN forward THEN '>' ELSE '<' END IN $full
          THEN $cap ELSE $named END AS kept
RETURN key, relation, forward, size(nodes) AS size,
       [n IN nodes[..kept] | n.id] AS ends,
       [n IN nodes[..$named] | coalesce(n.name, n.value, n.id)] AS names,
       supports[..kept] AS supports,
       CASE WHEN size(fits) = 0 THEN null ELSE reduce(s = 0.0, x IN fits | s + x) / size(fits) END AS type_score
