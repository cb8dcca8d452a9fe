// Upsert (property)-[:RANGE]->(:Class) for rdfs:range (each member of a unionOf range); rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:RANGE]->(b)
