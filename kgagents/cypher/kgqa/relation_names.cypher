// Display names of one KG's relationship types, from its relation catalogue (one name per type).
MATCH (r:Relation {kg: $kg})
WHERE r.type IS NOT NULL
RETURN r.type AS type, min(coalesce(r.name, r.type)) AS name
