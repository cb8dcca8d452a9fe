// What an ontology says about its own domain: its IRI, title and description, and its class hierarchy (every
// named class with its superclasses in the same ontology), from which the main concepts are computed.
MATCH (o:Ontology {name: $ontology})
CALL (o) {
  MATCH (c:Class)
  WHERE o.name IN c.ontologies AND NOT coalesce(c.deprecated, false)
  RETURN collect({uri: c.uri, name: coalesce(c.label, c.name),
                  parents: COLLECT { MATCH (c)-[:SCO]->(p:Class) WHERE o.name IN p.ontologies RETURN p.uri }}) AS classes
}
RETURN o.name AS name, o.uri AS uri, o.label AS label, o.comment AS comment, classes
