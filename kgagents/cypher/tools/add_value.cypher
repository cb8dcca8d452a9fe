// (subject)-[:HAS_VALUE {property}]->(:LiteralValue {datatype, value}); literal nodes are shared per A-Box.
MATCH (s:Instance {abox: $abox, iri: $subject})
MERGE (v:LiteralValue {abox: $abox, datatype: $datatype, value: $value})
MERGE (s)-[r:HAS_VALUE {property: $property}]->(v)
  ON CREATE SET r.name = $name, r.created_at = datetime()
RETURN s.iri AS iri
