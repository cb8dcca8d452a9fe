// The runs still marked 'running' that a process on this host started (its pid is on the run): the reaper checks
// whether each process is alive.
MATCH (r:Run {status: 'running', host: $host})
RETURN r.id AS id, r.pid AS pid
