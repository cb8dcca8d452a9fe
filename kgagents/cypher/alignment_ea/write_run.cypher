// Record one EA retrieval run: (:Run {id, job: 'ea-retrieval', ...settings and scores}); $started_at (the
// retrieval's start) when the run is written, null when scores are added later (the start is kept).
MERGE (r:Run {id: $run_id})
SET r += $props, r.job = 'ea-retrieval', r.finished_at = coalesce(r.finished_at, datetime()),
    r.started_at = coalesce(datetime($started_at), r.started_at)
