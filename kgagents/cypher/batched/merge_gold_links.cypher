// Batched load of a JAPE pair: gold links between the two sides, tagged with the load when created.
UNWIND $rows AS row
MATCH (a:Entity {kg: $kg1, id: row.a}) USING INDEX SEEK a:Entity(kg, id)
MATCH (b:Entity {kg: $kg2, id: row.b}) USING INDEX SEEK b:Entity(kg, id)
MERGE (a)-[g:GOLD_LINK {dataset: $dataset}]->(b)
  ON CREATE SET g.load = $load
SET g.split = row.split
