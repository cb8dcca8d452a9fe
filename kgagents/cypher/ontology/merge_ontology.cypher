// Create or update the (:Ontology) node of one loaded file (name is the key; uri is the owl:Ontology IRI, if any;
// label and comment are the ontology header's title and description).
MERGE (o:Ontology {name: $name})
SET o.uri = $uri, o.file = $file, o.label = $label, o.comment = $comment
