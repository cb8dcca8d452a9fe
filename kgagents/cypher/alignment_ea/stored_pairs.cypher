// The pairs of the entity alignment $alignment (`kgagents align` writes them), with both entities' KGs, sorted by source.
MATCH (s:Entity)-[a:ALIGNED {alignment: $alignment}]->(t:Entity)
RETURN s.id AS source, t.id AS target, s.kg AS source_kg, t.kg AS target_kg, a.measure AS score, a.confidence AS confidence,
       coalesce(a.assigned, false) AS assigned, coalesce(a.decided_by, 'retrieval') AS decided_by,
       a.reviewer AS reviewer
ORDER BY source
