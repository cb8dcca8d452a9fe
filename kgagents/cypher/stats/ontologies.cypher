// Per loaded ontology: classes, object properties, datatype properties.
MATCH (o:Ontology)
RETURN o.name AS ontology,
       COUNT { (c:Class)-[:DEFINED_IN]->(o) } AS classes,
       COUNT { (r:Relationship)-[:DEFINED_IN]->(o) } AS object_properties,
       COUNT { (p:Property)-[:DEFINED_IN]->(o) } AS datatype_properties
ORDER BY ontology
