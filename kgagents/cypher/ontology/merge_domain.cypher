// Upsert (property)-[:DOMAIN]->(:Class) for rdfs:domain (each member of a unionOf domain); rows are {source, target} URIs; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[e:DOMAIN]->(b)
SET e.ontologies = coalesce(e.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(e.ontologies, [])]
