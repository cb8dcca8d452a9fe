// The chat model's paraphrases `kgqa bootstrap` asked for before (keyed by model and prompt): a re-run asks again
// only what is missing.
UNWIND $keys AS key
MATCH (c:BootstrapParaphrase {kg: $kg, key: key})
RETURN c.key AS key, c.questions AS questions
