// The LLM gate learned for one KG, model and memory setting, if any — only one learned with the same weight of the
// model's log-odds (a gate learned under another re-ranking rule says nothing about this one).
MATCH (g:LLMGate {kg: $kg, model: $model, memory: $memory})
WHERE g.verify_weight = $verify_weight
RETURN g.confident AS confident
