// Batched load: relation triples grouped by relation, between the node ids the entity write returned (two lists
// per group, heads and tails: one list each to encode, not one per statement). Into a KG that held entities, each
// relationship carries the load's id ($load); into a fresh KG $load is null (no property): one end is a node the
// load created and tagged, and removing those nodes removes the relationship.
// Repeats across batches are removed by batched/dedup_triples at the end.
UNWIND $rows AS g
UNWIND range(0, size(g.heads) - 1) AS i
MATCH (a) WHERE id(a) = g.heads[i]
MATCH (b) WHERE id(b) = g.tails[i]
CREATE (a)-[:$(g.type) {rel: g.rel, name: g.name, load: $load}]->(b)
