// Answers of one KGQA run: the path each answer came from, how it was decided, and the entities it answered with
// (:param run => '<run id>').
MATCH (r:Run {id: $run})<-[:IN_RUN]-(t:QATrace)
OPTIONAL MATCH (t)-[:TOUCHED {role: 'answer'}]->(a:Entity)
RETURN t.question_id AS question, t.question AS text, t.answer_path AS path, t.decided_by AS decided_by,
       collect(a.name)[..3] AS answer_entities, t.gold AS gold, t.correct AS correct, r.model AS model,
       r.hits_at_1 AS run_hits_at_1, r.memory_examples AS memory_examples
ORDER BY question
LIMIT 25
