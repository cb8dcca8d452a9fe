// Answers of one KGQA run with the entities each question touched (:param run => '<run id>').
MATCH (r:Run {id: $run})<-[:IN_RUN]-(t:QATrace)
OPTIONAL MATCH (t)-[:TOUCHED {role: 'answer'}]->(a:Entity)
RETURN t.question_id AS question, t.question AS text, t.answer AS answer, t.gold AS gold, t.correct AS correct,
       collect(a.name)[..3] AS answer_entities, r.model AS model, r.summary_hits_at_1 AS run_hits_at_1
ORDER BY question
LIMIT 25
