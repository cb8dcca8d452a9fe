// Entity linking: a full-text index over the names and aliases of every KG's entities (standard analyzer).
CREATE FULLTEXT INDEX kgqa_entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases];
