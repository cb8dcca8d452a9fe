// Take ontology $ontology off the edges between resources it asserted (SCO, SPO, DOMAIN, RANGE, EQUIVALENT_CLASS, DISJOINT_WITH, RESTRICTION); delete those no ontology asserts any more. Edges without an `ontologies` list (MATCHES, ALIGNED, …) are not the loader's and stay.
MATCH (:Ontology {name: $ontology})<-[:DEFINED_IN]-(:Resource)-[e]->(:Resource)
WHERE $ontology IN coalesce(e.ontologies, [])
SET e.ontologies = [x IN e.ontologies WHERE x <> $ontology]
WITH e
WHERE size(e.ontologies) = 0
DELETE e
