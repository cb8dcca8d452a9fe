// The vote threshold calibrated for one KG's path memory (kgqa/calibration.py), if it is current: written after the
// memory last changed (every change removes it, kgqa/memory_calibration_clear).
MATCH (c:PathMemoryCalibration {kg: $kg})
RETURN c.threshold AS threshold, c.precision AS precision, c.target AS target, c.sample AS sample,
       c.phrasings AS phrasings, c.examples AS examples, c.k AS k, c.temperature AS temperature
