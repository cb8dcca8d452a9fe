// Relation triples as relationships typed by the relation short name (dynamic type); stored ones were left out by the loader.
UNWIND $rows AS row
MATCH (a:Entity {kg: $kg, id: row.h}) USING INDEX SEEK a:Entity(kg, id)
MATCH (b:Entity {kg: $kg, id: row.t}) USING INDEX SEEK b:Entity(kg, id)
CREATE (a)-[:$(row.type) {rel: row.rel, name: row.name}]->(b)
