// Add or change properties of a run without changing its status (e.g. counts known mid-run).
MATCH (r:Run {id: $run_id})
SET r += $props
RETURN r.id AS id
