// Store the vote threshold calibrated for one KG's path memory (one node per KG and calibration settings).
MERGE (c:PathMemoryCalibration {kg: $kg})
SET c += $props, c.computed_at = datetime()
