// How many procedures each plugin namespace contributes (gds, apoc, n10s).
SHOW PROCEDURES YIELD name
WHERE name STARTS WITH 'gds.' OR name STARTS WITH 'apoc.' OR name STARTS WITH 'n10s.'
RETURN split(name, '.')[0] AS prefix, count(*) AS n
ORDER BY prefix
