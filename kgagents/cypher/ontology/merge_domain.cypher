// Upsert (property)-[:DOMAIN]->(:Class) for rdfs:domain (each member of a unionOf domain); rows are {source, target} URIs.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.source})
MATCH (b:Resource {uri: row.target})
MERGE (a)-[:DOMAIN]->(b)
