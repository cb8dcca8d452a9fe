// Uniqueness constraints and lookup indexes, created up front (idempotent: IF NOT EXISTS).
// Ontologies follow the n10s model: one :Resource per URI, shared across the ontologies that mention it.
CREATE CONSTRAINT resource_uri IF NOT EXISTS FOR (r:Resource) REQUIRE r.uri IS UNIQUE;
CREATE CONSTRAINT ontology_name IF NOT EXISTS FOR (o:Ontology) REQUIRE o.name IS UNIQUE;
// Knowledge graphs (EA pairs, KGQA triples, Wikidata): one :Entity per (kg, id).
CREATE CONSTRAINT entity_kg_id IF NOT EXISTS FOR (e:Entity) REQUIRE (e.kg, e.id) IS UNIQUE;
CREATE CONSTRAINT kg_name IF NOT EXISTS FOR (k:KG) REQUIRE k.name IS UNIQUE;
CREATE CONSTRAINT relation_kg_id IF NOT EXISTS FOR (r:Relation) REQUIRE (r.kg, r.id) IS UNIQUE;
// Provenance: every load and every agent run is a node.
CREATE CONSTRAINT load_id IF NOT EXISTS FOR (l:Load) REQUIRE l.id IS UNIQUE;
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (r:Run) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT alignment_name IF NOT EXISTS FOR (a:Alignment) REQUIRE a.name IS UNIQUE;
CREATE INDEX resource_name IF NOT EXISTS FOR (r:Resource) ON (r.name);
CREATE INDEX resource_ontologies IF NOT EXISTS FOR (r:Resource) ON (r.ontologies);
CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name);
CREATE INDEX entity_kg IF NOT EXISTS FOR (e:Entity) ON (e.kg);
// Normalised names shared by the nodes that carry them (graph-native key joins, kgagents/candidates/keys.py).
CREATE CONSTRAINT match_key IF NOT EXISTS FOR (k:MatchKey) REQUIRE (k.kind, k.text) IS UNIQUE;
// Background knowledge (kgagents/loaders/background.py): one :Mediator per identifier that names no loaded class.
CREATE CONSTRAINT mediator_uri IF NOT EXISTS FOR (m:Mediator) REQUIRE m.uri IS UNIQUE;
// Retrieval candidates are replaced and read by run id (kgagents/agent/alignment/candidate_store.py): without
// the index, replacing one run's scans every earlier run's.
CREATE INDEX candidate_run IF NOT EXISTS FOR ()-[c:CANDIDATE]-() ON (c.run_id);
