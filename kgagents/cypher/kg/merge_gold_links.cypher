// Gold entity-alignment links between two KGs of a pair, with the dataset name and split ('train' | 'test').
UNWIND $rows AS row
MATCH (a:Entity {kg: $kg1, id: row.a}) USING INDEX SEEK a:Entity(kg, id)
MATCH (b:Entity {kg: $kg2, id: row.b}) USING INDEX SEEK b:Entity(kg, id)
MERGE (a)-[g:GOLD_LINK {dataset: $dataset}]->(b)
SET g.split = row.split
