// Literal-valued statements: (entity)-[:<type> {rel, name}]->(:Literal {kg, id, value, datatype, lang}); ids already stored were left out.
UNWIND $rows AS row
MATCH (e:Entity {kg: $kg, id: row.h}) USING INDEX SEEK e:Entity(kg, id)
CREATE (e)-[:$(row.type) {rel: row.rel, name: row.name}]->(:Literal {kg: $kg, id: row.id, value: row.value, datatype: row.datatype, lang: row.lang})
