// One (:Load) per (kind, target, file hash); counts arrive as count_<name> properties. A re-load of the same
// files replaces the record whole, so a re-load with other options leaves only its own counts.
MERGE (l:Load {id: $id})
SET l = $counts
SET l.id = $id, l.kind = $kind, l.target = $target, l.path = $path, l.sha256 = $sha256,
    l.seconds = $seconds, l.loaded_at = datetime($loaded_at)
