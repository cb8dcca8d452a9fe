// What a bulk import would replace: node count and the names of the KGs, ontologies and alignments, and agent runs.
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH (k:KG) RETURN collect(k.name) AS kgs }
CALL () { MATCH (o:Ontology) RETURN collect(o.name) AS ontologies }
CALL () { MATCH (a:Alignment) RETURN collect(a.name) AS alignments }
CALL () { MATCH (r:Run) RETURN count(r) AS runs }
RETURN nodes, kgs, ontologies, alignments, runs
