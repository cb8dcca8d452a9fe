// Template ({{label}}): element id and key (uri, else id) of every node of a scope that carries the vector property, by key.
MATCH (n:{{label}})
WHERE n[$vector_property] IS NOT NULL
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
RETURN elementId(n) AS id, coalesce(n.uri, n.id, elementId(n)) AS key
ORDER BY key
