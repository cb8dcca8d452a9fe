// Attribute names of every entity of KG $kg that has any (used to check whether two KGs' attribute vocabularies overlap).
MATCH (e:Entity {kg: $kg})
WHERE e.attributes IS NOT NULL
RETURN e.id AS id, e.attributes AS attributes
