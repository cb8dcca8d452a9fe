// The LLM gate learned for one KG, model and memory setting, if any.
MATCH (g:LLMGate {kg: $kg, model: $model, memory: $memory})
RETURN g.confident AS confident
