// The ontology already loaded under $name, if any: the file it came from and its ontology IRI.
MATCH (o:Ontology {name: $name})
RETURN o.file AS file, o.uri AS uri
