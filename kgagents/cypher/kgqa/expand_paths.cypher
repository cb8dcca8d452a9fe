// Path observation, one level: for each frontier (the end set of a path, under its key, optionally only over the
// relationship types in its `relations`), the relations leaving it,
// grouped by (relationship type, direction), with the entities they reach ranked by support (how many frontier
// entities reach each one). This is the relation-level aggregation: a hub's 4,000 has_genre triples are one row.
// Topic entities ($exclude) never re-enter a path. Per group: the size, the ids and supports of the best $cap ends
// (enough to expand the next level), the names of the best $named, and how well the names of the best $sample
// ends fit the question ($vector; cosine in [-1, 1], the mean over the ends that have a name vector in
// `embedding`; null when none has or no $vector is given).
// Bounded: a frontier's entities are walked in their order (best supported first) while their degrees add up to
// at most $budget relationships (null: no bound), and always the first; `sampled` says some were left unwalked
// (the groups' end sets are then a part of the true ones), as when the frontier's ids are only a part of its path's
// end set (`part`). A degree is the entity's count of KG triples written by
// `kgqa prepare` (kgqa/degrees), else its count of links (Neo4j's degree store: no relationship is read).
// $types: the KG's relationship types (its relation catalogue), so no relationship's or neighbour's properties are
// read to tell a KG triple from the graph's other links — a triple joins two entities of its KG — (null: the
// triples are told by their `rel` property and the neighbour's `kg`). Template ({{types}}): the same types written
// into the pattern by the caller (`cypher.with_types`), so a hub's other links (the run store's traces) are not
// walked at all.
OPTIONAL MATCH (x:Entity {kg: $kg}) WHERE x.id IN $exclude
WITH collect(x) AS excluded
UNWIND $frontiers AS f
CALL (f) {
  UNWIND range(0, size(f.ids) - 1) AS i
  MATCH (e:Entity {kg: $kg, id: f.ids[i]})
  WITH i, e ORDER BY i
  WITH collect(e) AS starts, collect(coalesce(e.kgqa_degree, COUNT { (e)--() })) AS degrees
  WITH starts, reduce(acc = [0, 0], d IN degrees |
         CASE WHEN acc[0] > 0 AND acc[1] + d > $budget THEN acc ELSE [acc[0] + 1, acc[1] + d] END) AS cut
  RETURN starts[..cut[0]] AS walked, cut[0] < size(starts) OR coalesce(f.part, false) AS sampled
}
UNWIND walked AS e
MATCH (e)-[r{{types}}]-(o)
WHERE (f.relations IS NULL OR type(r) IN f.relations)
  AND ($types IS NOT NULL OR r.rel IS NOT NULL)
  AND NOT o IN excluded
WITH f.key AS key, sampled, type(r) AS relation, startNode(r) = e AS forward, o, count(*) AS support
WHERE $types IS NOT NULL OR o.kg = $kg
ORDER BY support DESC, o.id
WITH key, sampled, relation, forward, collect(o) AS nodes, collect(support) AS supports
WITH key, sampled, relation, forward, nodes, supports,
     [n IN nodes[..$sample] WHERE $vector IS NOT NULL AND n.embedding IS NOT NULL | 2 * vector.similarity.cosine(n.embedding, $vector) - 1] AS fits
WITH key, sampled, relation, forward, nodes, supports, fits,
     CASE WHEN $full IS NULL OR key + '|' + relation + '|' + CASE WHEN forward THEN '>' ELSE '<' END IN $full
          THEN $cap ELSE $named END AS kept
// No more ends are sent back than the next level's budget walks (never fewer than $named, never more than `kept`):
// their degrees added up by the rule the next level walks them by (above), so it walks the entities it walked
// before. `complete`: the whole end set was within `kept` (the ends sent back may be fewer).
WITH key, sampled, relation, forward, nodes, supports, fits, kept,
     CASE WHEN $budget IS NULL OR kept <= $named THEN kept
          ELSE reduce(acc = [0, 0], d IN [n IN nodes[..kept] | coalesce(n.kgqa_degree, COUNT { (n)--() })] |
                 CASE WHEN acc[0] > 0 AND acc[1] + d > $budget THEN acc ELSE [acc[0] + 1, acc[1] + d] END)[0]
     END AS walkable
WITH key, sampled, relation, forward, nodes, supports, fits, kept,
     CASE WHEN kept <= $named OR walkable > $named THEN walkable ELSE $named END AS sent
RETURN key, relation, forward, size(nodes) AS size, sampled, size(nodes) <= kept AND NOT sampled AS complete,
       [n IN nodes[..sent] | n.id] AS ends,
       [n IN nodes[..$named] | coalesce(n.name, n.value, n.id)] AS names,
       supports[..sent] AS supports,
       CASE WHEN size(fits) = 0 THEN null ELSE reduce(s = 0.0, x IN fits | s + x) / size(fits) END AS type_score
