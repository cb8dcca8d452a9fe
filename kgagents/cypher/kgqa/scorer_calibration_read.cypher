// The zero-shot scorer's calibration learned by one KG's last bootstrap (kgqa/scorer_calibration.py), if any.
MATCH (c:ScorerCalibration {kg: $kg})
RETURN c.values AS values, c.run_id AS run_id, c.questions AS questions, c.questions_by_hops AS questions_by_hops,
       c.learned_with AS learned_with, c.grid AS grid, c.default AS default, c.rule AS rule
