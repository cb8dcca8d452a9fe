// Record one EA retrieval run: (:Run {id, job: 'ea-retrieval', ...settings and scores}).
MERGE (r:Run {id: $run_id})
SET r += $props, r.job = 'ea-retrieval', r.finished_at = datetime()
