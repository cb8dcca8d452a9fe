// (subject)-[:RELATES {property}]->(object); asserting it again changes nothing.
MATCH (s:Instance {abox: $abox, iri: $subject}), (o:Instance {abox: $abox, iri: $object})
MERGE (s)-[r:RELATES {property: $property}]->(o)
  ON CREATE SET r.name = $name, r.created_at = datetime()
RETURN s.iri AS iri
