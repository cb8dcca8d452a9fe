// Resources both ontologies declare (the same URI, e.g. classes of a vocabulary both import): never matched.
MATCH (r:Resource)
WHERE $source IN r.ontologies AND $target IN r.ontologies
RETURN r.uri AS uri
ORDER BY uri
