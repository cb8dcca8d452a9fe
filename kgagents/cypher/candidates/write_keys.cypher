// Link each node named in $rows ({id: element id, keys: [{kind, text, synonym}]}) to its shared
// (:MatchKey {kind, text}) nodes.
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.id
UNWIND row.keys AS key
MERGE (k:MatchKey {kind: key.kind, text: key.text})
CREATE (n)-[:HAS_KEY {kind: key.kind, synonym: key.synonym}]->(k)
