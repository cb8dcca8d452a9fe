// One BACKGROUND edge per statement of a file: between loaded entities (:Resource) and mediators (:Mediator);
// relation exact | narrow (from the narrower end) | close, the predicate as written, the file's confidence, and the
// names the file gives each end that is a loaded class (`a_names`, `b_names`; absent otherwise).
UNWIND $rows AS row
OPTIONAL MATCH (ra:Resource {uri: row.a})
OPTIONAL MATCH (ma:Mediator {uri: row.a})
WITH row, coalesce(ra, ma) AS a
OPTIONAL MATCH (rb:Resource {uri: row.b})
OPTIONAL MATCH (mb:Mediator {uri: row.b})
WITH row, a, coalesce(rb, mb) AS b
WHERE a IS NOT NULL AND b IS NOT NULL
CREATE (a)-[:BACKGROUND {file: $file, relation: row.relation, predicate: row.predicate, confidence: row.confidence,
                         a_names: row.a_names, b_names: row.b_names}]->(b)
