// A batch of finished questions of one KGQA run: (:QATrace)-[:IN_RUN]->(:Run), -[:TOUCHED {role}]->(:Entity)
// for every entity the run used (topic, explored, memory, answer), and one (:QAStep)-[:STEP_OF]->(:QATrace) per
// iteration. Re-writing a trace replaces its properties and adds nothing twice.
UNWIND $rows AS row
MATCH (run:Run {id: $run_id})
MERGE (t:QATrace {run_id: $run_id, question_id: row.question_id})
SET t += row.props
MERGE (t)-[:IN_RUN]->(run)
WITH t, row
CALL (t, row) {
  UNWIND row.touched AS touch
  MATCH (e:Entity {kg: $kg, id: touch.id})
  MERGE (t)-[:TOUCHED {role: touch.role}]->(e)
}
CALL (t, row) {
  UNWIND row.steps AS step
  MERGE (s:QAStep {run_id: $run_id, question_id: row.question_id, iteration: step.iteration})
  SET s += step
  MERGE (s)-[:STEP_OF]->(t)
}
