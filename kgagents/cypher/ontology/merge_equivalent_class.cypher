// Upsert (:Class)-[:EQUIVALENT_CLASS]->(:Class) for owl:equivalentClass between named classes; rows are {source, target} URIs; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[e:EQUIVALENT_CLASS]->(b)
SET e.ontologies = coalesce(e.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(e.ontologies, [])]
