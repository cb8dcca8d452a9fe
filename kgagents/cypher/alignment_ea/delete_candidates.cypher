// Remove the CANDIDATE relationships of one retrieval run (so re-running a run id replaces them).
MATCH (:Entity {kg: $kg1})-[c:CANDIDATE {run_id: $run_id}]->(:Entity)
DELETE c
