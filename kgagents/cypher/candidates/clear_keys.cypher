// Template ({{label}}, {{key_property}}): remove the HAS_KEY links of kinds $kinds from the scope's nodes named in $rows ({key}).
UNWIND $rows AS row
MATCH (n:{{label}} {{{key_property}}: row.key})-[r:HAS_KEY]->()
WHERE r.kind IN $kinds
  AND ($scope.key IS NULL
       OR CASE WHEN $scope.many THEN $scope.value IN n[$scope.key] ELSE n[$scope.key] = $scope.value END)
DELETE r
