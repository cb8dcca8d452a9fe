// Relation triples, grouped by relation (type, rel and name sent once per group), as relationships typed by the
// relation's short name (dynamic type) between node ids the entity write returned; stored ones were left out.
UNWIND $rows AS g
UNWIND g.pairs AS pair
MATCH (a) WHERE id(a) = pair[0]
MATCH (b) WHERE id(b) = pair[1]
CREATE (a)-[:$(g.type) {rel: g.rel, name: g.name}]->(b)
