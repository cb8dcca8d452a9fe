// Name cosine of candidate pairs that the vector index did not propose (row.s of KG $kg1, row.t of KG $kg2).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
MATCH (t:Entity {kg: $kg2, id: row.t})
RETURN row.s AS source, row.t AS target,
       CASE WHEN s[$vector_property] IS NULL OR t[$vector_property] IS NULL THEN 0.0
            ELSE 2 * vector.similarity.cosine(s[$vector_property], t[$vector_property]) - 1 END AS cosine
