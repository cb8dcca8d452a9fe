// Wait until the entity-name full-text index is online (it is populated in the background after creation).
CALL db.awaitIndex('kgqa_entity_names', $timeout)
