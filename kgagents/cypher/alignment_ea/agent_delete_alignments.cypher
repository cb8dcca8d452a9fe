// Remove the SAME_AS relationships and AlignTrace nodes of one EA-Agent run (so re-running a run id replaces them).
CALL () {
  MATCH (:Entity {kg: $kg1})-[a:SAME_AS {run_id: $run_id}]->(:Entity)
  DELETE a
}
MATCH (t:AlignTrace {run_id: $run_id})
DETACH DELETE t
