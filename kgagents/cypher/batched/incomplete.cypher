// Loads not marked complete (running, failed, or killed): what they wrote is to be ignored by readers.
MATCH (l:Load)
WHERE l.status IS NOT NULL AND l.status <> 'complete'
RETURN l.id AS id, l.target AS target, l.status AS status, l.kgs AS kgs, l.path AS path,
       toString(l.started_at) AS started_at, l.pid AS pid, l.host AS host
ORDER BY l.started_at
