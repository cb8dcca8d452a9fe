// Entity linking: a full-text index over the names and aliases of every KG's entities (standard analyzer), and the
// underscore-free names kgqa/search_names writes.
CREATE FULLTEXT INDEX kgqa_entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases, e.kgqa_name];
