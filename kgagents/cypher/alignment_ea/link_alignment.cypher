// One (s)-[:ALIGNED {alignment, relation: '=', measure, confidence, assigned, decided_by, reviewer}]->(t) per row {s, t, score, confidence, assigned, decided_by, reviewer} of entity alignment $alignment between KGs $kg1 and $kg2.
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
MATCH (t:Entity {kg: $kg2, id: row.t})
CREATE (s)-[:ALIGNED {alignment: $alignment, relation: '=', measure: row.score, confidence: row.confidence, assigned: row.assigned,
                     decided_by: row.decided_by, reviewer: row.reviewer}]->(t)
