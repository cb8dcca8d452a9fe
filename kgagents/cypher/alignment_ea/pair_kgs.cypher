// The two KGs (source side, target side) that the gold links of dataset $dataset connect.
MATCH (a:Entity)-[:GOLD_LINK {dataset: $dataset}]->(b:Entity)
RETURN a.kg AS kg1, b.kg AS kg2
LIMIT 1
