// Nearest neighbours of one vector: over-fetch from the vector index, keep the scope's nodes (cosine = 2·score − 1).
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node, score
WITH node, score
WHERE $scope IS NULL
   OR ($scope.label IN labels(node)
       AND ($scope.key IS NULL
            OR CASE WHEN $scope.many THEN $scope.value IN node[$scope.key] ELSE node[$scope.key] = $scope.value END))
RETURN elementId(node) AS id, coalesce(node.uri, node.id) AS key, node.name AS name, 2 * score - 1 AS cosine
ORDER BY score DESC
LIMIT $k
