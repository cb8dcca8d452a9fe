// The cost of the last embedding pass that wrote triple readings, on the KG node (the one-time cost of a KG).
MATCH (k:KG {name: $kg})
SET k.kgqa_readings_seconds = $seconds, k.kgqa_readings_texts = $texts, k.kgqa_readings_written = $written,
    k.kgqa_readings_embedder = $embedder, k.kgqa_readings_at = $at
