// Instances with this normalised label whose class is one of $classes (a class and its subclasses).
MATCH (n:Instance {abox: $abox, key: $key})
WHERE n.class IN $classes
RETURN n.iri AS iri, n.class AS class, n.label AS label
ORDER BY n.iri
