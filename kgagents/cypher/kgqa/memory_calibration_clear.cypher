// The memory of one KG changed: its calibrated vote threshold no longer holds.
MATCH (c:PathMemoryCalibration {kg: $kg})
DELETE c
