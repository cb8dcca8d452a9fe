// The IRI an ontology declares (owl:Ontology), for the onto1/onto2 of an exported alignment.
MATCH (o:Ontology {name: $ontology})
RETURN coalesce(o.uri, o.name) AS uri
