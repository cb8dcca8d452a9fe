// A bootstrap's last step (one transaction with kgqa/memory_calibration_clear): the live examples of $source are
// removed with the phrasings left without examples, and the examples staged by run $run_id become live.
CALL {
  MATCH (x:PathExample {kg: $kg, source: $source})
  WHERE x.staged IS NULL
  DETACH DELETE x
}
CALL {
  MATCH (x:PathExample {kg: $kg, staged: $run_id})
  REMOVE x.staged
}
CALL {
  MATCH (q:PathQuestion {kg: $kg})
  WHERE NOT EXISTS { (q)<-[:PHRASED_AS]-() }
  DELETE q
}
