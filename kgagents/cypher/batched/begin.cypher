// Batched load: its (:Load) record, marked 'loading' until every batch is committed (readers skip what an
// incomplete load wrote: every node and relationship it created carries its id in `load`). `kgs` tells a
// cleanup where to look; `pid` and `host` name the process a user looks for when the load is left 'loading'.
// Committed only once the load's guard transaction is open (see kgagents/loaders/unfinished.py).
MERGE (l:Load {id: $id})
SET l = {id: $id, kind: $kind, target: $target, path: $path, sha256: $sha256, method: 'batched', kgs: $kgs,
         status: 'loading', started_at: datetime(), pid: $pid, host: $host}
