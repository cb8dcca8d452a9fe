// The language most labels of each named ontology carry (kgagents.loaders.ontology_model; null: untagged).
MATCH (o:Ontology)
WHERE o.name IN $names
RETURN o.name AS name, o.label_language AS language
