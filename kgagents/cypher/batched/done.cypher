// Batched load: whether this very load (same kind, target and files) is complete and its KGs still list it —
// then loading again has nothing to do.
OPTIONAL MATCH (l:Load {id: $id, status: 'complete'})
RETURN l IS NOT NULL AND all(kg IN $kgs WHERE EXISTS { MATCH (k:KG {name: kg}) WHERE $id IN k.loads }) AS done
