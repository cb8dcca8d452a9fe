// The (:Run) node of a matching run: what ran on which ontologies, with which model and settings, what it cost,
// and when it started ($started_at: the run's first step) and finished.
// $props: the settings and <stage>_seconds timings as typed properties.
MERGE (r:Run {id: $run_id})
SET r += $props,
    r.job = 'matching', r.source = $source, r.target = $target, r.model = $model, r.mode = $mode,
    r.matches = $matches, r.llm_calls = $llm_calls,
    r.finished_at = datetime(), r.started_at = coalesce(datetime($started_at), r.started_at, datetime())
WITH r
MATCH (o:Ontology) WHERE o.name IN [$source, $target]
MERGE (r)-[:ON]->(o)
