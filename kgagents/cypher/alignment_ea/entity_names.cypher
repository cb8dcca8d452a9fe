// Id and English name (translated name_en, else name) of every entity of KG $kg: input of the exact-name signal.
MATCH (e:Entity {kg: $kg})
RETURN e.id AS id, coalesce(e.name_en, e.name) AS name
