// Store ranked candidates of one run: (s)-[:CANDIDATE {run_id, rank, score, assigned, signals, name, multilingual, exact, structure, attributes}]->(t).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
MATCH (t:Entity {kg: $kg2, id: row.t})
CREATE (s)-[:CANDIDATE {run_id: $run_id, rank: row.rank, score: row.score, assigned: row.assigned,
                        signals: row.signals, name: row.name, multilingual: row.multilingual, exact: row.exact,
                        structure: row.structure, attributes: row.attributes}]->(t)
