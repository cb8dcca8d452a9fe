// Template ({{label}}): how many nodes of a scope (null: every node of the label) carry a vector.
MATCH (n:{{label}})
WHERE n[$vector_property] IS NOT NULL
  AND ($scope IS NULL OR $scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
RETURN count(n) AS n
