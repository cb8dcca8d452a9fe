// Template ({{label}}, {{scope_label}}): give every node of a scope its own scope label (so a vector index can cover just that scope), in batches.
MATCH (n:{{label}})
WHERE NOT n:{{scope_label}}
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
CALL (n) {
  SET n:{{scope_label}}
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS labelled
