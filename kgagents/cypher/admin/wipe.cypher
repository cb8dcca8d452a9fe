// Delete every node and relationship in batches (test isolation and `kgagents reset`).
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
