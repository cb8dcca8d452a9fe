// The latest agent runs with their model, mode and headline score (F1 for matching, Hits@1 for alignment).
MATCH (r:Run)
RETURN r.id AS run, r.job AS job, coalesce(r.source + ' → ' + r.target, r.dataset) AS on, r.model AS model,
       r.mode AS mode, coalesce(r.matches, r.aligned) AS pairs, r.f1 AS f1,
       coalesce(r.hits_at_1, r.test_hits_at_1) AS hits_at_1
ORDER BY r.finished_at DESC
LIMIT 10
