// Literal-valued statements: (entity)-[:<type> {rel, name}]->(:Literal {kg, id, value, datatype, lang}), the entity
// by the node id the entity write returned; ids already stored were left out.
UNWIND $rows AS row
MATCH (e) WHERE id(e) = row.node
CREATE (e)-[:$(row.type) {rel: row.rel, name: row.name}]->(:Literal {kg: $kg, id: row.id, value: row.value, datatype: row.datatype, lang: row.lang})
