// Remove the staged (not yet live) examples of one bootstrap run ($run_id), or of every run ($run_id null: what a
// killed bootstrap left), and the phrasings left without examples; returns how many examples were removed.
OPTIONAL MATCH (x:PathExample {kg: $kg})
WHERE x.staged IS NOT NULL AND ($run_id IS NULL OR x.staged = $run_id)
WITH collect(x) AS gone
FOREACH (x IN gone | DETACH DELETE x)
WITH size(gone) AS removed
OPTIONAL MATCH (q:PathQuestion {kg: $kg}) WHERE NOT EXISTS { (q)<-[:PHRASED_AS]-() }
WITH removed, collect(q) AS orphans
FOREACH (q IN orphans | DELETE q)
RETURN removed
