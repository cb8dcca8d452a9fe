// The gold alignment of one EA dataset: (side-1 entity id, side-2 entity id, split), in a stable order.
MATCH (a:Entity)-[g:GOLD_LINK {dataset: $dataset}]->(b:Entity)
RETURN a.id AS source, b.id AS target, g.split AS split
ORDER BY source, target
