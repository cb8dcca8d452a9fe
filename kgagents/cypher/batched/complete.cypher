// Batched load: every batch is in; the KG nodes appear (or are updated) and the load is marked complete.
UNWIND $kgs AS kg
MERGE (k:KG {name: kg.name})
SET k += kg.props, k.loads = [x IN coalesce(k.loads, []) WHERE x <> $id] + $id
WITH count(*) AS done
MATCH (l:Load {id: $id})
SET l += $counts, l.status = 'complete', l.seconds = $seconds, l.loaded_at = datetime()
