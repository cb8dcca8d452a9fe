// The source entities an EA-Agent run decided on (one AlignTrace each).
MATCH (tr:AlignTrace {run_id: $run_id})
RETURN DISTINCT tr.source AS source
