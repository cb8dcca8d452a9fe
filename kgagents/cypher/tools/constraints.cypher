// A-Box instances written by the compiled ontology tools: keys backed by uniqueness constraints.
// An instance is identified within its A-Box by its IRI, and by (class, normalised label): creating
// the same label twice in one class reuses the instance, even under concurrent tool calls.
CREATE CONSTRAINT tool_instance_iri IF NOT EXISTS FOR (i:Instance) REQUIRE (i.abox, i.iri) IS UNIQUE;
CREATE CONSTRAINT tool_instance_key IF NOT EXISTS FOR (i:Instance) REQUIRE (i.abox, i.class, i.key) IS UNIQUE;
CREATE CONSTRAINT tool_literal_value IF NOT EXISTS FOR (v:LiteralValue) REQUIRE (v.abox, v.datatype, v.value) IS UNIQUE;
CREATE INDEX tool_instance_abox_key IF NOT EXISTS FOR (i:Instance) ON (i.abox, i.key);
CREATE INDEX tool_instance_abox IF NOT EXISTS FOR (i:Instance) ON (i.abox);
// Grounding created instances in a reference KG: fuzzy candidates by entity name.
CREATE FULLTEXT INDEX tool_entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name];
