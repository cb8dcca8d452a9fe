// One (:Load) per (kind, target, file hash); counts arrive as count_<name> properties.
MERGE (l:Load {id: $id})
SET l.kind = $kind, l.target = $target, l.path = $path, l.sha256 = $sha256,
    l.seconds = $seconds, l.loaded_at = datetime($loaded_at)
SET l += $counts
