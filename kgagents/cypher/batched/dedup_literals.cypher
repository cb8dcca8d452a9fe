// Batched load, last step for literal statements (rows [head node, type, rel, literal id] the Bloom filter could
// not rule out): of a literal stored more than once under one head, the copies this load wrote go, each with its
// Literal node when the load created it (see batched/dedup_triples for which copy stays).
UNWIND $rows AS row
MATCH (a) WHERE id(a) = row[0]
CALL (a, row) {
  MATCH (a)-[r:$(row[1])]->(b:Literal)
  WHERE r.rel = row[2] AND b.id = row[3]
  WITH collect(r) AS rs
  WHERE size(rs) > 1
  WITH [x IN rs WHERE a.load = $load OR x.load = $load] AS mine, size(rs) AS n
  UNWIND (CASE WHEN size(mine) = n THEN mine[1..] ELSE mine END) AS extra
  WITH extra, endNode(extra) AS b
  DELETE extra
  WITH b
  CALL (b) {
    WITH b WHERE b.load = $load
    DELETE b
  }
  RETURN count(*) AS deleted
}
RETURN sum(deleted) AS deleted
