// Every named class and property of the loaded ontologies, with the ontologies declaring it: what a background
// file's identifiers are resolved against (kgagents.loaders.background.ClassIndex).
MATCH (r:Resource)
WHERE (r:Class OR r:Relationship OR r:Property) AND size(coalesce(r.ontologies, [])) > 0
RETURN r.uri AS uri, r.ontologies AS ontologies
