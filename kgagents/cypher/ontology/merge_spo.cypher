// Upsert (property)-[:SPO]->(property) for rdfs:subPropertyOf; rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:SPO]->(b)
