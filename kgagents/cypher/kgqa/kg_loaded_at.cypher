// When one KG was last loaded (its newest (:Load) record), as text; null when it has none.
OPTIONAL MATCH (l:Load {target: $kg})
RETURN toString(max(l.loaded_at)) AS loaded_at
