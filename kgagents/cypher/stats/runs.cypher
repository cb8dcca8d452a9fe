// The latest agent runs with their model, mode and scores.
MATCH (r:Run)
RETURN r.id AS run, r.job AS job, r.source + ' → ' + r.target AS on, r.model AS model, r.mode AS mode,
       r.matches AS matches, r.f1 AS f1
ORDER BY r.finished_at DESC
LIMIT 10
