// Mark a run finished: its final properties and scores, the headline score ($metric names it; r.score holds it),
// the end time and the wall seconds since it started.
MATCH (r:Run {id: $run_id})
SET r += $props, r.status = 'finished', r.metric = $metric, r.score = $score, r.error = null,
    r.finished_at = datetime()
SET r.seconds = duration.inSeconds(r.started_at, r.finished_at).seconds
                + duration.inSeconds(r.started_at, r.finished_at).nanosecondsOfSecond / 1e9
RETURN r.id AS id
