// Upsert (property)-[:SPO]->(property) for rdfs:subPropertyOf; rows are {source, target} URIs; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[e:SPO]->(b)
SET e.ontologies = coalesce(e.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(e.ontologies, [])]
