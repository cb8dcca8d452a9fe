// How many path examples one KG has, and from how many questions.
MATCH (x:PathExample {kg: $kg})
RETURN count(x) AS examples, count(DISTINCT x.question_key) AS questions
