// How many path examples one KG has (examples a bootstrap is still writing are not counted), from how many
// questions, and how many of them were generated from the KG itself (`kgqa bootstrap`, source 'bootstrap').
MATCH (x:PathExample {kg: $kg})
WHERE x.staged IS NULL
RETURN count(x) AS examples, count(DISTINCT x.question_key) AS questions,
       count(CASE WHEN x.source = 'bootstrap' THEN 1 END) AS bootstrap
