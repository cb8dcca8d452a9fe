// The (:Run) a ledger writes its calls under (created if the run has not written its node yet).
MERGE (:Run {id: $run_id})
