// The relation catalogue of one KG: every (:Relation) with its properties, by id.
MATCH (r:Relation {kg: $kg})
RETURN properties(r) AS relation
ORDER BY r.id
