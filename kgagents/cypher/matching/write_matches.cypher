// One MATCHES relationship per accepted pair and run (re-writing the same run changes nothing); score is the fused
// rank score, similarity the best channel cosine (1 for a lexical pre-match or containment match), log_odds the
// graded validator's log-odds of "yes" (null where it was not asked or answered in text), confidence the calibrated
// confidence in [0, 1] (kgagents.agent.matching.confidence).
UNWIND $rows AS row
MATCH (s:Resource {uri: row.source})
MATCH (t:Resource {uri: row.target})
MERGE (s)-[m:MATCHES {run_id: $run_id}]->(t)
SET m.score = row.score, m.similarity = row.similarity, m.channels = row.channels, m.validated = row.validated, m.reason = row.reason,
    m.log_odds = row.log_odds, m.confidence = row.confidence,
    m.model = $model, m.mode = $mode, m.created_at = datetime()
