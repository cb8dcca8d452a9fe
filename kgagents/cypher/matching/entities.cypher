// The entities one ontology contributes to matching: its named classes and (object/datatype) properties, with their texts.
MATCH (r:Resource)
WHERE $ontology IN r.ontologies
  AND (r:Class OR ($properties AND (r:Relationship OR r:Property)))
  AND NOT coalesce(r.deprecated, false)
RETURN r.uri AS uri, r.name AS name, r.label AS label, coalesce(r.labels, []) AS labels,
       coalesce(r.synonyms, []) AS synonyms, r.comment AS comment, coalesce(r.definitions, []) AS definitions,
       CASE WHEN r:Class THEN 'Class' WHEN r:Relationship THEN 'Relationship' ELSE 'Property' END AS kind
ORDER BY uri
