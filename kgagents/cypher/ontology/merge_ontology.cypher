// Create or update the (:Ontology) node of one loaded file (name is the key; uri is the owl:Ontology IRI, if any).
MERGE (o:Ontology {name: $name})
SET o.uri = $uri, o.file = $file
