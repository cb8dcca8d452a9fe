// Upsert (:Class)-[:SCO]->(:Class) for rdfs:subClassOf between named classes; rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:SCO]->(b)
