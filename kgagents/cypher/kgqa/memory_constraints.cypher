// Path memory: one (:PathExample) per (KG, learned question, relation path); one (:PathQuestion) per (KG, distinct
// masked question), which holds the vector.
CREATE CONSTRAINT path_example_key IF NOT EXISTS FOR (x:PathExample) REQUIRE (x.kg, x.id) IS UNIQUE;
CREATE CONSTRAINT path_question_key IF NOT EXISTS FOR (q:PathQuestion) REQUIRE (q.kg, q.key) IS UNIQUE;
