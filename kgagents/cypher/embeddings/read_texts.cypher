// Template ({{label}}): text parts, stored text hash and vector presence of every node in a scope (embedding input).
MATCH (n:{{label}})
WHERE $scope.key IS NULL
   OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END
RETURN elementId(n) AS id,
       [p IN $text_properties | n[p]] AS parts,
       n[$sha_property] AS sha,
       n[$vector_property] IS NOT NULL AS has_vector
