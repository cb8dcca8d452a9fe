// The other names an LLM listed for these entities (om_other_names, one per line), when $model wrote them.
UNWIND $uris AS uri
MATCH (r:Resource {uri: uri})
WHERE r.om_other_names IS NOT NULL AND r.om_other_names_model = $model
RETURN uri, r.om_other_names AS names
