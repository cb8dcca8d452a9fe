// What an extraction run wrote through the tools: its A-Boxes (one document: <abox>; several: <abox>:<document id>;
// the benchmark's: <abox_prefix><sentence id>), their instances and the assertions those instances make.
MATCH (r:Run {id: $run_id})
WITH r.abox AS abox, coalesce(r.abox_prefix, r.abox + ':') AS prefix
OPTIONAL MATCH (s:Instance) WHERE s.abox = abox OR s.abox STARTS WITH prefix
RETURN count(DISTINCT s.abox) AS documents, count(s) AS instances,
       sum(COUNT { (s)-[:RELATES|HAS_VALUE]->() }) AS assertions
