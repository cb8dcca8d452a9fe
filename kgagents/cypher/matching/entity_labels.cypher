// rdfs:labels of every entity of the given ontologies (the non-trivial variant removes pairs sharing one).
MATCH (r:Resource)
WHERE any(o IN r.ontologies WHERE o IN $ontologies)
RETURN r.uri AS uri, coalesce(r.labels, []) AS labels
