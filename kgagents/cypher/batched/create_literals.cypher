// Batched load: literal statements (entity)-[:<type>]->(:Literal), node and relationship tagged with the load.
UNWIND $rows AS row
MATCH (e) WHERE id(e) = row.node
CREATE (e)-[:$(row.type) {rel: row.rel, name: row.name, load: $load}]->
       (:Literal {kg: $kg, id: row.id, value: row.value, datatype: row.datatype, lang: row.lang, load: $load})
