// Remove every A-Box whose name starts with $prefix (a benchmark's per-sentence A-Boxes), except those of runs
// still running (another benchmark on the same database): a run's A-Boxes are named after its abox_prefix.
OPTIONAL MATCH (r:Run {status: 'running'}) WHERE r.abox_prefix STARTS WITH $prefix
WITH collect(r.abox_prefix) AS busy
MATCH (n) WHERE (n:Instance OR n:LiteralValue) AND n.abox STARTS WITH $prefix
  AND none(b IN busy WHERE n.abox STARTS WITH b)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
