// owl:sameAs from created instances to the reference-KG entities they were grounded to.
UNWIND $rows AS row
MATCH (n:Instance {abox: $abox, iri: row.iri}), (e:Entity {kg: $kg, id: row.id})
MERGE (n)-[r:OWL_SAME_AS]->(e)
SET r.score = row.score, r.method = 'lexical'
