// Upsert (C)-[:RESTRICTION {property, kind}]->(D) for anonymous restrictions C ⊑ (property kind D), with cardinality if qualified.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[r:RESTRICTION {property: row.property, kind: row.kind}]->(b)
SET r.cardinality = row.cardinality
