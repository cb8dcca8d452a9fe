// Delete the given resources that no ontology defines any more (a class removed from a re-loaded file), with their edges.
UNWIND $rows AS row
MATCH (r:Resource {uri: row.uri})
WHERE NOT (r)-[:DEFINED_IN]->(:Ontology)
DETACH DELETE r
