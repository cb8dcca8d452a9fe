// The LLM gate learned for one KG, model and memory setting, if any — only one learned with the same re-ranking
// rule and weight of the model's grades (a gate learned under another rule says nothing about this one; gates
// stored before rules were recorded used the yes/no log-odds).
MATCH (g:LLMGate {kg: $kg, model: $model, memory: $memory})
WHERE g.verify_weight = $verify_weight AND coalesce(g.ranking, 'yes_no') = $ranking
RETURN g.confident AS confident
