// Id and the two name vectors ($english, $multilingual properties; null when absent) of every entity of KG $kg: what the name signals compare in memory.
MATCH (e:Entity {kg: $kg})
RETURN e.id AS id, e[$english] AS english, e[$multilingual] AS multilingual
