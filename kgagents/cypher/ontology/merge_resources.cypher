// Upsert resources of one kind ($kind: Class, Relationship, Property) of ontology $ontology: one node per URI, lists merged as sets, scalars only filled in.
MATCH (o:Ontology {name: $ontology})
UNWIND $rows AS row
MERGE (r:Resource {uri: row.uri})
SET r:$($kind),
    r.name = row.name,
    r.label = coalesce(r.label, row.label),
    r.comment = coalesce(r.comment, row.comment),
    r.deprecated = coalesce(r.deprecated, false) OR row.deprecated,
    r.labels = coalesce(r.labels, []) + [x IN row.labels WHERE NOT x IN coalesce(r.labels, [])],
    r.definitions = coalesce(r.definitions, []) + [x IN row.definitions WHERE NOT x IN coalesce(r.definitions, [])],
    r.synonyms = coalesce(r.synonyms, []) + [x IN row.synonyms WHERE NOT x IN coalesce(r.synonyms, [])],
    r.ontologies = coalesce(r.ontologies, []) + [x IN [$ontology] WHERE NOT x IN coalesce(r.ontologies, [])],
    r.datatype_range = CASE WHEN r.datatype_range IS NULL AND size(row.datatype_range) = 0 THEN null
                       ELSE coalesce(r.datatype_range, [])
                            + [x IN row.datatype_range WHERE NOT x IN coalesce(r.datatype_range, [])] END
MERGE (r)-[:DEFINED_IN]->(o)
