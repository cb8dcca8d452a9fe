// A bootstrap's scorer calibration for one KG (in the transaction that makes its memory live): it replaces the
// previous bootstrap's; $props null removes it (a bootstrap that learned none leaves no stale one behind).
OPTIONAL MATCH (old:ScorerCalibration {kg: $kg})
DELETE old
WITH 1 AS one
WHERE $props IS NOT NULL
CREATE (c:ScorerCalibration {kg: $kg})
SET c += $props, c.learned_at = datetime()
