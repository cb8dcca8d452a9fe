// Upsert (C)-[:RESTRICTION {property, kind}]->(D) for anonymous restrictions C ⊑ (property kind D), with cardinality if qualified; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[r:RESTRICTION {property: row.property, kind: row.kind}]->(b)
SET r.cardinality = row.cardinality,
    r.ontologies = coalesce(r.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(r.ontologies, [])]
