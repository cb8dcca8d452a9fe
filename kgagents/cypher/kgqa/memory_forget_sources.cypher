// Remove the path examples of one KG learned from any source but $source (a benchmark's memory holds exactly what
// it learned from its own training split), and phrasings left without examples; returns how many were removed.
MATCH (x:PathExample {kg: $kg})
WHERE x.source <> $source
WITH collect(x) AS gone
FOREACH (x IN gone | DETACH DELETE x)
WITH size(gone) AS removed
OPTIONAL MATCH (q:PathQuestion {kg: $kg}) WHERE NOT EXISTS { (q)<-[:PHRASED_AS]-() }
WITH removed, collect(q) AS orphans
FOREACH (q IN orphans | DELETE q)
RETURN removed
