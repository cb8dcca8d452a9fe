// GetPath: up to $cap paths of at most $max_length KG relationships between two entities of one KG, shortest
// first (APOC breadth-first expansion; only :Entity nodes of that KG are walked, so run traces never link paths).
MATCH (a:Entity {kg: $kg, id: $source}), (b:Entity {kg: $kg, id: $target})
CALL apoc.path.expandConfig(a, {endNodes: [b], minLevel: 1, maxLevel: $max_length, labelFilter: '+Entity',
                                uniqueness: 'NODE_PATH', bfs: true, limit: $cap})
YIELD path
WHERE all(n IN nodes(path) WHERE n.kg = $kg) AND all(r IN relationships(path) WHERE r.rel IS NOT NULL)
RETURN [r IN relationships(path) | {
          rid: elementId(r), head: startNode(r).id, head_name: coalesce(startNode(r).name, startNode(r).id),
          relation: type(r), relation_name: coalesce(r.name, type(r)),
          tail: endNode(r).id, tail_name: coalesce(endNode(r).name, endNode(r).id)}] AS triples,
       [n IN nodes(path) | n.id] AS entities
