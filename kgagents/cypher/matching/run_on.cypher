// Tie a matching run to the two ontologies it matched (the run store writes the (:Run) node itself; a graph
// embedded without Agent.run has no run node, and then nothing is tied).
MATCH (r:Run {id: $run_id})
MATCH (o:Ontology) WHERE o.name IN [$source, $target]
MERGE (r)-[:ON]->(o)
