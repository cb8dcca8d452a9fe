// Record one KGQA run: (:Run {id, job: 'kgqa', kg, mode, model, settings, summary numbers}).
MERGE (r:Run {id: $run_id})
SET r += $props, r.job = 'kgqa'
