// One run's properties, or the runs whose id starts with $run_id (a unique prefix is enough).
MATCH (r:Run)
WHERE r.id STARTS WITH $run_id
RETURN properties(r) AS run
ORDER BY r.id
LIMIT 5
