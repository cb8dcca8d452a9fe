// Each question a KGQA run answered: its answer (names, one per line), the agent's confidence, what decided it,
// whether it was right (null without gold) and the gold answers' names.
MATCH (t:QATrace {run_id: $run_id})
RETURN t.question_id AS question_id, t.answer AS answer, t.confidence AS confidence, t.decided_by AS decided_by,
       t.correct AS correct, t.gold AS gold
ORDER BY question_id
