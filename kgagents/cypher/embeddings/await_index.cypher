// Block until the named index is ONLINE (fails after $timeout_s seconds).
CALL db.awaitIndex($index_name, $timeout_s)
