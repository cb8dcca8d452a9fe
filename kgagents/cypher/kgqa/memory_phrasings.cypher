// Every phrasing (distinct masked question) of one KG's path memory with its vector and what its examples say:
// per example its path, weight, re-entry and learned question. What the vote threshold is calibrated on
// (kgqa/calibration.py, leave one phrasing out). Examples still being written by a bootstrap (`staged`) are not
// part of the memory yet.
MATCH (q:PathQuestion {kg: $kg})<-[:PHRASED_AS]-(x:PathExample {kg: $kg})
WHERE x.staged IS NULL AND q.vector IS NOT NULL
WITH q, collect({path: x.path, weight: x.weight, reentry: coalesce(x.reentry, false),
                 question_key: x.question_key, source: x.source, question: x.question, topic: x.topic}) AS examples
RETURN q.key AS phrasing, q.masked AS masked, q.vector AS vector, examples
ORDER BY phrasing
