// What an ontology says about its own domain: its IRI, title and description, and its top classes (no superclass
// in the ontology) with the most classes below them.
MATCH (o:Ontology {name: $ontology})
CALL (o) {
  MATCH (c:Class)
  WHERE o.name IN c.ontologies AND NOT coalesce(c.deprecated, false)
    AND NOT EXISTS { MATCH (c)-[:SCO]->(p:Class) WHERE o.name IN p.ontologies }
  CALL (c, o) {
    MATCH (d:Class)
    WHERE o.name IN d.ontologies AND d <> c AND EXISTS { (d)-[:SCO]->+(c) }
    RETURN count(d) AS below
  }
  RETURN coalesce(c.label, c.name) AS top, below
  ORDER BY below DESC, top
  LIMIT $limit
}
RETURN o.name AS name, o.uri AS uri, o.label AS label, o.comment AS comment,
       collect(CASE WHEN below > 0 THEN top END) AS tops
