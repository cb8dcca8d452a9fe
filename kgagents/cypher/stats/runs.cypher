// The latest runs of every job: status (running / finished / failed), what they ran on, model, mode and headline
// score (metric = its name), newest first. Every job writes the same (:Run) shape (kgagents/graph/runs.py). The run
// id already carries the job and its start time; a model's description after " (" is dropped.
MATCH (r:Run)
RETURN r.id AS run, r.job AS job, coalesce(r.status, 'unknown') AS status,
       coalesce(r.source + ' → ' + r.target, r.dataset, r.kg, r.benchmark) AS on,
       r.metric AS metric, r.score AS score, r.seconds AS seconds, r.mode AS mode,
       CASE WHEN r.model IS NULL OR r.model STARTS WITH 'none' THEN null ELSE split(r.model, ' (')[0] END AS model,
       r.error AS error
ORDER BY r.started_at DESC
LIMIT 10
