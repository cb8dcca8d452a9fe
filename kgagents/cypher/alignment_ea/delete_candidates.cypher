// Remove the CANDIDATE relationships of one retrieval run (so re-running a run id replaces them); found through the
// candidate_run index, not by walking every candidate of the KG's entities.
MATCH (s:Entity)-[c:CANDIDATE {run_id: $run_id}]->(:Entity)
WHERE s.kg = $kg1
DELETE c
