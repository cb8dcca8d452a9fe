// One stored KGQA trace: its properties, its steps in order, and the entities it touched by role.
MATCH (t:QATrace {run_id: $run_id, question_id: $question_id})
OPTIONAL MATCH (s:QAStep)-[:STEP_OF]->(t)
WITH t, s ORDER BY s.iteration
WITH t, collect(properties(s)) AS steps
OPTIONAL MATCH (t)-[x:TOUCHED]->(e:Entity)
RETURN properties(t) AS trace, steps, collect({role: x.role, id: e.id, name: e.name}) AS touched
