// Batched load: literal statements (entity)-[:<type>]->(:Literal), grouped by relation in columns (node ids, ids,
// values, datatypes, langs), the Literal node tagged with the load ($load), the relationship too ($tag) unless the
// KG was fresh ($tag null: the Literal node carries the tag for both).
UNWIND $rows AS g
UNWIND range(0, size(g.nodes) - 1) AS i
MATCH (e:Entity) WHERE id(e) = g.nodes[i]
CREATE (e)-[:$(g.type) {rel: g.rel, name: g.name, load: $tag}]->
       (:Literal {kg: $kg, id: g.ids[i], value: g.values[i], datatype: g.datatypes[i], lang: g.langs[i], load: $load})
