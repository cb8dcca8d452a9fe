// Record what ontology $ontology's file says about each resource of one kind ($kind: Class, Relationship, Property) on its DEFINED_IN edge (one node per URI); ontology/derive_resources then sets the node's properties from all its DEFINED_IN edges.
MATCH (o:Ontology {name: $ontology})
UNWIND $rows AS row
MERGE (r:Resource {uri: row.uri})
MERGE (r)-[d:DEFINED_IN]->(o)
SET d.kinds = coalesce(d.kinds, []) + [x IN [$kind] WHERE NOT x IN coalesce(d.kinds, [])],
    d.name = row.name, d.label = row.label, d.labels = row.labels, d.comment = row.comment,
    d.definitions = row.definitions, d.synonyms = row.synonyms, d.deprecated = row.deprecated,
    d.datatype_range = row.datatype_range
