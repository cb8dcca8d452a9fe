// The resources of this load ($rows: uri, labels, synonyms) that other ontologies also declare (the same IRI) and to
// which this file gives names they do not: a node's names are the union of every declaring ontology's
// (ontology/derive_resources), so this load changes how those resources read in the other ontology too.
UNWIND $rows AS row
MATCH (r:Resource {uri: row.uri})-[d:DEFINED_IN]->(o:Ontology)
WHERE o.name <> $ontology
  AND any(x IN row.labels + row.synonyms WHERE NOT x IN coalesce(d.labels, []) + coalesce(d.synonyms, []))
RETURN o.name AS ontology, count(DISTINCT r) AS resources
ORDER BY ontology
