// Batched load, last step: among the statements leaving these head nodes, a repeat of a (relation, end node) —
// for a literal, of its content id — is removed when this load wrote it (a head the load created has only its
// statements; otherwise they carry its id): a statement stored before is kept, and of the load's own repeats the
// first stays. Literal repeats take their Literal node with them.
UNWIND $heads AS h
MATCH (a) WHERE id(a) = h
CALL (a) {
  MATCH (a)-[r]->(b)
  WHERE r.rel IS NOT NULL
  WITH r.rel AS rel, b:Literal AS literal, CASE WHEN b:Literal THEN b.id ELSE elementId(b) END AS target,
       collect(r) AS rs
  WHERE size(rs) > 1
  WITH [x IN rs WHERE a.load = $load OR x.load = $load] AS mine, size(rs) AS n
  UNWIND (CASE WHEN size(mine) = n THEN mine[1..] ELSE mine END) AS extra
  WITH extra, endNode(extra) AS b
  DELETE extra
  WITH b WHERE b:Literal AND b.load = $load
  DELETE b
}
