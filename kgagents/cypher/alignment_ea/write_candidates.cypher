// Store ranked candidates of one run, a row per source (its node looked up once): (s)-[:CANDIDATE {run_id, rank, score, assigned, signals, name, multilingual, exact, structure, attributes}]->(t).
UNWIND $rows AS row
MATCH (s:Entity {kg: $kg1, id: row.s})
UNWIND row.candidates AS c
MATCH (t:Entity {kg: $kg2, id: c.t})
CREATE (s)-[:CANDIDATE {run_id: $run_id, rank: c.rank, score: c.score, assigned: c.assigned,
                        signals: c.signals, name: c.name, multilingual: c.multilingual, exact: c.exact,
                        structure: c.structure, attributes: c.attributes}]->(t)
