// The run(s) whose id is $run_id or starts with it (a prefix is enough when it is unique).
MATCH (r:Run)
WHERE r.id STARTS WITH $run_id
RETURN properties(r) AS run
ORDER BY r.id
LIMIT 5
