// Upsert (:Class)-[:DISJOINT_WITH]->(:Class) for owl:disjointWith between named classes; rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:DISJOINT_WITH]->(b)
