// Delete one set of synthetic benchmark vectors, in batches.
MATCH (n:SyntheticVector {set: $set})
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
