// Batched load, last step: statements written twice (rows [head node, tail node, type, rel] that the load's Bloom
// filter could not rule out). Of a (head, rel, tail) stored more than once, the copies this load wrote are removed
// (a head the load created has only its statements; otherwise they carry its id): a statement stored before is
// kept, and of the load's own repeats the first stays. Expand(Into) walks the smaller side's relationships of the
// type, so a hub head costs no more than its partner.
UNWIND $rows AS row
MATCH (a) WHERE id(a) = row[0]
MATCH (b) WHERE id(b) = row[1]
CALL (a, b, row) {
  MATCH (a)-[r:$(row[2])]->(b)
  WHERE r.rel = row[3]
  WITH collect(r) AS rs
  WHERE size(rs) > 1
  WITH [x IN rs WHERE a.load = $load OR x.load = $load] AS mine, size(rs) AS n
  UNWIND (CASE WHEN size(mine) = n THEN mine[1..] ELSE mine END) AS extra
  DELETE extra
  RETURN count(*) AS deleted
}
RETURN sum(deleted) AS deleted
