// Remember the vectors of path texts a run embedded (one node per KG, path space and text).
UNWIND $rows AS row
MERGE (p:PathText {kg: $kg, space: $space, key: row.key})
SET p.text = row.text, p.vector = row.vector
