// Name cosine and attribute-name Jaccard of candidate pairs: rows {s, ts} (a source id of KG $kg1, target ids of KG $kg2).
// The source's vector and attribute names are read once per row, not once per pair (half the time on DBP15K).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
WITH row, s, s[$vector_property] AS sv, coalesce(s.attributes, []) AS a
UNWIND row.ts AS tid
MATCH (t:Entity {kg: $kg2, id: tid})
WITH s, t, sv, t[$vector_property] AS tv, a, coalesce(t.attributes, []) AS b
WITH s, t, sv, tv, a, b, size([x IN b WHERE x IN a]) AS shared
RETURN s.id AS source, t.id AS target,
       CASE WHEN sv IS NULL OR tv IS NULL THEN 0.0 ELSE 2 * vector.similarity.cosine(sv, tv) - 1 END AS cosine,
       CASE WHEN size(a) + size(b) = 0 THEN 0.0 ELSE toFloat(shared) / (size(a) + size(b) - shared) END AS jaccard
