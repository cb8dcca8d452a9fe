// Direct structural neighbours (super/sub classes, restriction fillers such as part_of, super/sub properties) of each entity.
UNWIND $uris AS uri
MATCH (r:Resource {uri: uri})
OPTIONAL MATCH (r)-[:SCO|SPO|RESTRICTION]-(n:Resource)
RETURN uri, collect(DISTINCT n.uri) AS neighbours
