// Whether the KG has any entity yet (a first load creates them, a re-load merges).
OPTIONAL MATCH (e:Entity {kg: $kg})
WITH e LIMIT 1
RETURN e IS NOT NULL AS found
