// Which of $uris are resources declared by any of $ontologies (the rest are unknown to the graph's ontologies).
MATCH (r:Resource)
WHERE r.uri IN $uris AND any(o IN r.ontologies WHERE o IN $ontologies)
RETURN r.uri AS uri
