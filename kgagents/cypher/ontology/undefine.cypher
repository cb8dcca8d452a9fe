// Delete ontology $ontology's DEFINED_IN edges (what its previous load said about each resource); returns the URIs it defined.
MATCH (:Ontology {name: $ontology})<-[d:DEFINED_IN]-(r:Resource)
DELETE d
RETURN r.uri AS uri
