// Structure signal: for each row {s, known} (source id of KG $kg1, targets proposed so far), weight of targets t of $kg2 adjacent to the seed counterparts m = $seeds[n.id] of s's neighbours n, each seed counting 1/ln(e + degree(m)) (seeds with degree > $max_degree skipped; targets in $taken skipped); keeps the top $k and every known target.
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
CALL (s, row) {
  MATCH (s)--(n:Entity {kg: $kg1})
  WHERE n <> s AND $seeds[n.id] IS NOT NULL
  WITH DISTINCT $seeds[n.id] AS mid
  MATCH (m:Entity {kg: $kg2, id: mid})
  WITH m, COUNT { (m)--(:Entity {kg: $kg2}) } AS degree
  WHERE degree <= $max_degree
  MATCH (m)--(t:Entity {kg: $kg2})
  WHERE t <> m AND $taken[t.id] IS NULL
  WITH DISTINCT t, m, degree
  WITH t, sum(1.0 / log(e() + degree)) AS weight
  ORDER BY weight DESC, t.id
  WITH collect({target: t.id, weight: weight}) AS ranked
  RETURN [i IN range(0, size(ranked) - 1) WHERE i < $k OR ranked[i].target IN row.known | ranked[i]] AS hits
}
RETURN s.id AS source, hits
