// The latest runs (of one job when $job is given), newest first.
MATCH (r:Run)
WHERE $job IS NULL OR r.job = $job
RETURN properties(r) AS run
ORDER BY r.started_at DESC, r.id DESC
LIMIT $limit
