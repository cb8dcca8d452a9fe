// Record one EA-Agent run: (:Run {id, job: 'ea-agent', ...settings, counts and scores}), with when it started
// ($started_at: the run's first step) and finished.
MERGE (r:Run {id: $run_id})
SET r += $props, r.job = 'ea-agent', r.finished_at = datetime(),
    r.started_at = coalesce(datetime($started_at), r.started_at, datetime())
