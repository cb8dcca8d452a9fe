// Template ({{label}}, {{key_property}}): element ids of the nodes of a scope whose key (uri or id) is in $keys.
MATCH (n:{{label}})
WHERE n.{{key_property}} IN $keys
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
RETURN n.{{key_property}} AS key, elementId(n) AS id
