// Mark a run failed with the error that ended it (what a user reads in `kgagents stats`).
MERGE (r:Run {id: $run_id})
SET r.status = 'failed', r.error = $error, r.finished_at = datetime(),
    r.started_at = coalesce(r.started_at, datetime()),
    r.job = coalesce(r.job, $job)
SET r.seconds = duration.inSeconds(r.started_at, r.finished_at).seconds
                + duration.inSeconds(r.started_at, r.finished_at).nanosecondsOfSecond / 1e9
RETURN r.id AS id
