// Instances whose normalised label contains $key, optionally restricted to $classes; shortest labels first.
MATCH (n:Instance {abox: $abox})
WHERE n.key CONTAINS $key AND ($classes IS NULL OR n.class IN $classes)
RETURN n.iri AS iri, n.label AS label, n.class_name AS class
ORDER BY size(n.key), n.iri
LIMIT $limit
