// Upsert (:Class)-[:DISJOINT_WITH]->(:Class) for owl:disjointWith between named classes; rows are {source, target} URIs; the edge lists the ontologies asserting it.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[e:DISJOINT_WITH]->(b)
SET e.ontologies = coalesce(e.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(e.ontologies, [])]
