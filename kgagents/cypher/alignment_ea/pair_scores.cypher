// Name cosine and attribute-name Jaccard of candidate pairs: rows {s, ts} (a source id of KG $kg1, target ids of KG $kg2).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
UNWIND row.ts AS tid
MATCH (t:Entity {kg: $kg2, id: tid})
WITH s, t, coalesce(s.attributes, []) AS a, coalesce(t.attributes, []) AS b
WITH s, t, a, b, size([x IN a WHERE x IN b]) AS shared
RETURN s.id AS source, t.id AS target,
       CASE WHEN s[$vector_property] IS NULL OR t[$vector_property] IS NULL THEN 0.0
            ELSE 2 * vector.similarity.cosine(s[$vector_property], t[$vector_property]) - 1 END AS cosine,
       CASE WHEN size(a) + size(b) = 0 THEN 0.0 ELSE toFloat(shared) / (size(a) + size(b) - shared) END AS jaccard
