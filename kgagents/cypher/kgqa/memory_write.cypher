// Learned path examples of one KG: the question, its topic, one relation path that leads from the topic to its answers
// (weak supervision), the path's answer F1 and weight (1 / the number of equally good paths), where the example
// came from, and the masked question's vector. Learning the same question again replaces its examples.
UNWIND $rows AS row
MERGE (x:PathExample {kg: $kg, id: row.id})
SET x += row.props, x.learned_at = datetime()
WITH x, row
CALL db.create.setNodeVectorProperty(x, 'vector', row.vector)
