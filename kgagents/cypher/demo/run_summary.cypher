// One row of the demo summary: a run's score ($score_property of its (:Run) node), model and wall time, read back
// from the graph (started_at / finished_at may be stored as datetimes or ISO strings; datetime() takes both).
MATCH (r:Run {id: $run_id})
RETURN r[$score_property] AS score, r.model AS model,
       CASE WHEN r.started_at IS NULL OR r.finished_at IS NULL THEN null
            ELSE duration.inSeconds(datetime(r.started_at), datetime(r.finished_at)).seconds
                 + duration.inSeconds(datetime(r.started_at), datetime(r.finished_at)).nanosecondsOfSecond / 1e9
       END AS seconds
