// The simple triples around each entity that the semantic channel verbalises: super/sub classes, domain/range, restrictions.
UNWIND $uris AS uri
MATCH (r:Resource {uri: uri})
RETURN uri,
  [(r)-[:SCO]->(p) | coalesce(p.label, p.name)] AS parents,
  [(c)-[:SCO]->(r) | coalesce(c.label, c.name)][..10] AS children,
  [(r)-[:SPO]->(p) | coalesce(p.label, p.name)] AS super_properties,
  [(r)-[:DOMAIN]->(d) | coalesce(d.label, d.name)] AS domains,
  [(r)-[:RANGE]->(d) | coalesce(d.label, d.name)] AS ranges,
  coalesce(r.datatype_range, []) AS datatype_ranges,
  [(p)-[:DOMAIN]->(r) | coalesce(p.label, p.name)][..10] AS properties_with_domain,
  [(r)-[x:RESTRICTION]->(d) | [x.property, coalesce(d.label, d.name)]][..10] AS restrictions
