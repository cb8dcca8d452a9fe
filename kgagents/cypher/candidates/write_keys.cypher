// Template ({{label}}, {{key_property}}): link each node of the scope named in $rows ({key, keys: [{kind, text, synonym}]}) to its shared (:MatchKey {kind, text}) nodes.
UNWIND $rows AS row
MATCH (n:{{label}} {{{key_property}}: row.key})
WHERE $scope.key IS NULL
   OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END
UNWIND row.keys AS key
MERGE (k:MatchKey {kind: key.kind, text: key.text})
CREATE (n)-[:HAS_KEY {kind: key.kind, synonym: key.synonym}]->(k)
