// The entities of one KG that have at least one relationship to another entity of it (literals are not topics):
// what `kgqa bootstrap` samples its topic entities from.
MATCH (e:Entity {kg: $kg})
WHERE EXISTS { (e)-[r]-(o:Entity) WHERE r.rel IS NOT NULL AND o.kg = $kg }
RETURN e.id AS id
ORDER BY id
