// Record one EA-Agent run: (:Run {id, job: 'ea-agent', ...settings, counts and scores}).
MERGE (r:Run {id: $run_id})
SET r += $props, r.job = 'ea-agent', r.finished_at = datetime()
