// Attach evaluation scores (against a named reference) to a run.
MATCH (r:Run {id: $run_id})
SET r += $scores, r.reference = $reference
