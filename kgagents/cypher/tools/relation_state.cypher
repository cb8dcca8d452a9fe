// Before asserting (subject)-[property]->(object): the subject's class and current values of the
// property, and the object's class (null when the object is not an instance of this A-Box).
MATCH (s:Instance {abox: $abox, iri: $iri})
OPTIONAL MATCH (s)-[r:RELATES|HAS_VALUE {property: $property}]->(v)
WITH s, [x IN collect(v) | coalesce(x.iri, x.value)] AS values
OPTIONAL MATCH (o:Instance {abox: $abox, iri: $object})
RETURN s.class AS class, values, o.class AS object_class
