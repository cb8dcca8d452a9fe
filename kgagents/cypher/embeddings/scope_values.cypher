// Template ({{label}}): the distinct values of a scope's key among nodes of the label (an unknown name's error
// lists them); a list-valued key (ontologies) contributes each element.
MATCH (n:{{label}})
WHERE n[$key] IS NOT NULL
UNWIND CASE WHEN $many THEN n[$key] ELSE [n[$key]] END AS value
RETURN DISTINCT value
ORDER BY value
