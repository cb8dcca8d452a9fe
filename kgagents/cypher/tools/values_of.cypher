// The subject's class and its current values of one property (instance IRIs or literal values).
MATCH (s:Instance {abox: $abox, iri: $iri})
OPTIONAL MATCH (s)-[r:RELATES|HAS_VALUE {property: $property}]->(o)
RETURN s.class AS class, [x IN collect(o) | coalesce(x.iri, x.value)] AS values
