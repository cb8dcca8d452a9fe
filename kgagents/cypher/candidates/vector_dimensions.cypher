// Template ({{label}}): the length of one stored vector of a scope (null when no node of the scope has one).
MATCH (n:{{label}})
WHERE n[$vector_property] IS NOT NULL
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
RETURN size(n[$vector_property]) AS dimensions
LIMIT 1
