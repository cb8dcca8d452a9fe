// Template ({{label}}, {{scope_label}}): take the scope label off nodes that left the scope (e.g. an ontology reloaded without them), in batches.
MATCH (n:{{scope_label}})
WHERE NOT (n:{{label}}
           AND ($scope.key IS NULL
                OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END))
CALL (n) {
  REMOVE n:{{scope_label}}
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS removed
