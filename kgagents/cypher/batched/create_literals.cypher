// Batched load: literal statements (entity)-[:<type>]->(:Literal), the Literal node tagged with the load ($load),
// the relationship too ($tag) unless the KG was fresh ($tag null: the Literal node carries the tag for both).
UNWIND $rows AS row
MATCH (e:Entity) WHERE id(e) = row.node
CREATE (e)-[:$(row.type) {rel: row.rel, name: row.name, load: $tag}]->
       (:Literal {kg: $kg, id: row.id, value: row.value, datatype: row.datatype, lang: row.lang, load: $load})
