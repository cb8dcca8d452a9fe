// The (:Run) node of an extraction run (Text2KGBench through the compiled tools): what ran, with which model,
// its global scores and settings as typed properties ($props), the A-Box prefix its instances carry, and when it
// started ($started_at) and finished.
MERGE (r:Run {id: $run_id})
SET r += $props,
    r.job = 'extraction', r.benchmark = $benchmark, r.mode = $mode, r.model = $model, r.label = $label,
    r.abox_prefix = $abox_prefix, r.started_at = datetime($started_at), r.finished_at = datetime()
