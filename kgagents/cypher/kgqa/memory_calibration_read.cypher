// The vote threshold calibrated for one KG's path memory (kgqa/calibration.py), if it is current: written after the
// memory last changed (every change removes it, kgqa/memory_calibration_clear).
MATCH (c:PathMemoryCalibration {kg: $kg})
RETURN c.threshold AS threshold, c.sample AS sample, c.phrasings AS phrasings, c.examples AS examples, c.k AS k,
       c.temperature AS temperature, c.vote_right AS vote_right, c.zero_shot_right AS zero_shot_right,
       c.chosen_right AS chosen_right, c.voting AS voting, c.requested AS requested,
       c.scorer AS scorer
