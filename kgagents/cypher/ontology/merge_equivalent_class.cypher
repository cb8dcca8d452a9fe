// Upsert (:Class)-[:EQUIVALENT_CLASS]->(:Class) for owl:equivalentClass between named classes; rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:EQUIVALENT_CLASS]->(b)
