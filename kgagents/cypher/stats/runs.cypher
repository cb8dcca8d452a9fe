// The latest runs of every job: status (running / finished / failed), what they ran on, model, mode and headline
// score (metric = its name), newest first. Every job writes the same (:Run) shape (kgagents/graph/runs.py).
MATCH (r:Run)
RETURN r.id AS run, r.job AS job, coalesce(r.status, 'unknown') AS status,
       coalesce(r.source + ' → ' + r.target, r.dataset, r.kg, r.benchmark) AS on, r.model AS model, r.mode AS mode,
       CASE WHEN r.score IS NULL THEN null ELSE r.metric + ' ' + toString(round(r.score, 4)) END AS score,
       toString(r.started_at) AS started_at, round(r.seconds, 1) AS seconds, r.error AS error
ORDER BY r.started_at DESC
LIMIT 10
