// How many relation triples of KG $kg use each relation id (rel): freq(r) of the EA-Agent's relation selector.
MATCH (:Entity {kg: $kg})-[r]->(:Entity {kg: $kg})
WHERE r.rel IS NOT NULL
RETURN r.rel AS rel, count(*) AS freq
