// The names of all loaded ontologies.
MATCH (o:Ontology)
RETURN o.name AS name
ORDER BY name
