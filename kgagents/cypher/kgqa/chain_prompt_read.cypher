// The chain check's prompt stored for one KG (kgagents/agent/kgqa/chains.py), keyed by its settings and the KG's
// latest load: a prompt samples the KG's paths (seconds to minutes on a Wikidata subgraph), so it is made once.
MATCH (c:ChainPrompt {kg: $kg, key: $key})
RETURN c.prompt AS prompt
