// Instances of an A-Box that name things (OM-2 quantities, measures and units excluded), with their keys.
MATCH (n:Instance {abox: $abox})
WHERE NOT n.class IN $excluded
RETURN n.iri AS iri, n.label AS label, n.key AS key
ORDER BY n.iri
