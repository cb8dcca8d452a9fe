// Remove the path examples of the given questions (by question key) before they are learned again, and any
// phrasing left without examples.
MATCH (x:PathExample {kg: $kg})
WHERE x.question_key IN $keys
OPTIONAL MATCH (x)-[:PHRASED_AS]->(q:PathQuestion)
DETACH DELETE x
WITH DISTINCT q WHERE q IS NOT NULL AND NOT EXISTS { (q)<-[:PHRASED_AS]-() }
DELETE q
