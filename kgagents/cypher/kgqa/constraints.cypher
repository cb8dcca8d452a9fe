// KGQA traces: one (:QATrace) per (run, question), one (:QAStep) per (run, question, iteration).
CREATE CONSTRAINT qa_trace_key IF NOT EXISTS FOR (t:QATrace) REQUIRE (t.run_id, t.question_id) IS UNIQUE;
CREATE CONSTRAINT qa_step_key IF NOT EXISTS FOR (s:QAStep) REQUIRE (s.run_id, s.question_id, s.iteration) IS UNIQUE;
