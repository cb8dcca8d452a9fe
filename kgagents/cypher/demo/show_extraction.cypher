// What an extraction run wrote through the compiled tools: instances and their assertions, one row per
// assertion, with the run's provenance (:param run => '<run id>').
MATCH (r:Run {id: $run})
MATCH (s:Instance)-[a:RELATES|HAS_VALUE]->(o) WHERE s.abox STARTS WITH r.abox_prefix
RETURN substring(s.abox, size(r.abox_prefix)) AS sentence, s.label AS subject, a.property AS relation,
       coalesce(o.label, toString(o.value)) AS object, r.model AS model, r.f1 AS run_f1
ORDER BY sentence, subject, relation
LIMIT 25
