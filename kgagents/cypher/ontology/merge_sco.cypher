// Upsert (:Class)-[:SCO]->(:Class) for rdfs:subClassOf between named classes; rows are {source, target} URIs; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[e:SCO]->(b)
SET e.ontologies = coalesce(e.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(e.ontologies, [])]
