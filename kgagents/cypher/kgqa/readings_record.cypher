// What the last triple-reading embedding pass of one KG cost (null when it was never recorded).
MATCH (k:KG {name: $kg})
RETURN k.kgqa_readings_seconds AS seconds, k.kgqa_readings_texts AS texts, k.kgqa_readings_written AS written,
       k.kgqa_readings_embedder AS embedder, k.kgqa_readings_at AS at
