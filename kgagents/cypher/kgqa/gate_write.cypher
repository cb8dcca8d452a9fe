// Store the LLM gate learned for one KG, model and memory setting (kgagents.jobs.kgqa_gate.learn_gate): gated
// mode asks that model only below `confident`; the train record it was learned from is kept beside it.
MERGE (g:LLMGate {kg: $kg, model: $model, memory: $memory})
SET g += $record, g.confident = $confident, g.learned_at = datetime()
RETURN g.confident AS confident
