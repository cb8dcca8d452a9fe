// Set each resource's kind labels and properties from what every ontology defining it says (its DEFINED_IN edges, ontologies by name): lists are unions, scalars come from the first ontology that has one.
UNWIND $rows AS row
MATCH (r:Resource {uri: row.uri})-[d:DEFINED_IN]->(o:Ontology)
WITH r, d, o
ORDER BY o.name
WITH r, collect(d) AS ds, collect(o.name) AS names
WITH r, ds, names,
     reduce(acc = [], d IN ds | acc + [x IN coalesce(d.kinds, []) WHERE NOT x IN acc]) AS kinds,
     reduce(acc = [], d IN ds | acc + [x IN coalesce(d.datatype_range, []) WHERE NOT x IN acc]) AS datatype_range
REMOVE r:Class:Relationship:Property
SET r:$(kinds),
    r.ontologies = names,
    r.name = head([d IN ds WHERE d.name IS NOT NULL | d.name]),
    r.label = head([d IN ds WHERE d.label IS NOT NULL | d.label]),
    r.comment = head([d IN ds WHERE d.comment IS NOT NULL | d.comment]),
    r.deprecated = any(d IN ds WHERE d.deprecated),
    r.labels = reduce(acc = [], d IN ds | acc + [x IN coalesce(d.labels, []) WHERE NOT x IN acc]),
    r.definitions = reduce(acc = [], d IN ds | acc + [x IN coalesce(d.definitions, []) WHERE NOT x IN acc]),
    r.synonyms = reduce(acc = [], d IN ds | acc + [x IN coalesce(d.synonyms, []) WHERE NOT x IN acc]),
    r.datatype_range = CASE WHEN size(datatype_range) = 0 THEN null ELSE datatype_range END
