// Block until every index is online (after creating indexes).
CALL db.awaitIndexes($timeout_s)
