// What an extraction run wrote through the compiled tools: instances and their assertions, one row per
// assertion, with the run's provenance (:param run => '<run id>'). A run's documents live in A-Boxes named
// <abox>:<document id> (the benchmark's: <abox_prefix><sentence id>).
MATCH (r:Run {id: $run})
WITH r, coalesce(r.abox_prefix, r.abox + ':') AS prefix
MATCH (s:Instance)-[a:RELATES|HAS_VALUE]->(o) WHERE s.abox STARTS WITH prefix
RETURN substring(s.abox, size(prefix)) AS sentence, s.label AS subject, a.name AS relation,
       coalesce(o.label, toString(o.value)) AS object, r.model AS model, r.f1 AS run_f1
ORDER BY sentence, subject, relation
LIMIT 25
