// The LLM gate learned for one KG, model and memory setting, if any — only one learned with the same re-ranking
// rule and weight of the model's log-probabilities (a gate learned under another rule says nothing about this one).
MATCH (g:LLMGate {kg: $kg, model: $model, memory: $memory})
WHERE g.verify_weight = $verify_weight AND g.ranking = $ranking
RETURN g.confident AS confident
