// Remove the path examples of one KG learned from any source but $source (a benchmark's memory holds exactly what
// it learned from its own training split); returns how many were removed.
MATCH (x:PathExample {kg: $kg})
WHERE x.source <> $source
WITH collect(x) AS gone
FOREACH (x IN gone | DETACH DELETE x)
RETURN size(gone) AS removed
