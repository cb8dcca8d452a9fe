// Template ({{label}}): key and vector of every node of a scope carrying the vector property, by key (the benchmark's numpy reference reads these).
MATCH (n:{{label}})
WHERE n[$vector_property] IS NOT NULL
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
RETURN coalesce(n.uri, n.id, elementId(n)) AS key, n[$vector_property] AS vector
ORDER BY key
