// Learned path examples of one KG: the question, its topic, one relation path that leads from the topic to its answers
// (weak supervision), the path's answer F1 and weight (1 / the number of equally good paths) and where the example
// came from, each -[:PHRASED_AS]-> the (:PathQuestion) of its masked question (created with its vector when new).
// Learning the same question again replaces its examples (kgqa/memory_forget runs first).
UNWIND $rows AS row
MERGE (q:PathQuestion {kg: $kg, key: row.phrasing})
ON CREATE SET q.masked = row.masked
WITH q, row
CALL (q, row) {
  WITH q, row WHERE q.vector IS NULL
  CALL db.create.setNodeVectorProperty(q, 'vector', row.vector)
}
MERGE (x:PathExample {kg: $kg, id: row.id})
SET x += row.props, x.learned_at = datetime()
MERGE (x)-[:PHRASED_AS]->(q)
