// The entities of one KG named like the given answers (datasets whose answers are names, not KG ids).
MATCH (e:Entity {kg: $kg})
WHERE e.name IN $names
RETURN e.id AS id
