// Create or update the (:Ontology) node of one loaded file (name is the key; uri is the owl:Ontology IRI, if any;
// label and comment are the ontology header's title and description; label_language the language tag most of its
// resources' labels carry, null when they carry none).
MERGE (o:Ontology {name: $name})
SET o.uri = $uri, o.file = $file, o.label = $label, o.comment = $comment, o.label_language = $label_language
