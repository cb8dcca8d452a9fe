// Batched load: relation triples grouped by relation, between the node ids the entity write returned. Into a KG
// that held entities, each relationship carries the load's id ($load); into a fresh KG $load is null (no
// property): one end is a node the load created and tagged, and removing those nodes removes the relationship.
// Repeats across batches are removed by batched/dedup_triples at the end.
UNWIND $rows AS g
UNWIND g.pairs AS pair
MATCH (a) WHERE id(a) = pair[0]
MATCH (b) WHERE id(b) = pair[1]
CREATE (a)-[:$(g.type) {rel: g.rel, name: g.name, load: $load}]->(b)
