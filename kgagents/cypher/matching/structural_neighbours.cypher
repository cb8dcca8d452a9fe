// Direct structural neighbours of each entity: super/sub classes, restriction fillers such as part_of and super/sub
// properties, plus, when $domain_range, the domain and range classes of a property and the properties whose domain
// or range a class is.
UNWIND $uris AS uri
MATCH (r:Resource {uri: uri})
OPTIONAL MATCH (r)-[:SCO|SPO|RESTRICTION]-(n:Resource)
WITH r, uri, collect(DISTINCT n.uri) AS hierarchy
RETURN uri, hierarchy + CASE WHEN $domain_range
                             THEN COLLECT { MATCH (r)-[:DOMAIN|RANGE]-(d:Resource) RETURN DISTINCT d.uri }
                             ELSE [] END AS neighbours
