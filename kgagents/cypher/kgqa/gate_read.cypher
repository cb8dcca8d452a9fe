// The LLM gate learned for one KG, model and memory setting, if any — only one learned with the same re-ranking
// rule, weight of the model's grades and model checks (a gate learned under another rule says nothing about this
// one; gates stored before rules were recorded used the yes/no log-odds, before checks were recorded none).
MATCH (g:LLMGate {kg: $kg, model: $model, memory: $memory})
WHERE g.verify_weight = $verify_weight AND coalesce(g.ranking, 'yes_no') = $ranking
  AND coalesce(g.checks, '') = $checks
RETURN g.confident AS confident
