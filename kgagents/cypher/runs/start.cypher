// Start (or resume) a run: status 'running', its job, model, mode and properties. A resumed run keeps its first
// started_at; error and finished_at of an earlier failed attempt are cleared.
MERGE (r:Run {id: $run_id})
SET r += $props,
    r.job = $job, r.model = $model, r.mode = $mode, r.status = 'running',
    r.started_at = coalesce(r.started_at, datetime()),
    r.finished_at = null, r.seconds = null, r.error = null
RETURN r.started_at AS started_at
