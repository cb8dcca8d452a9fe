// The properties of one EA retrieval run and how many CANDIDATE relationships it stored.
MATCH (r:Run {id: $run_id})
RETURN properties(r) AS run, COUNT { ()-[:CANDIDATE {run_id: $run_id}]->() } AS candidates
