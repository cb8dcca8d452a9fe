// Remove the HAS_KEY links of kinds $kinds from the nodes named in $rows ({id: element id}).
UNWIND $rows AS row
MATCH (n)-[r:HAS_KEY]->()
WHERE elementId(n) = row.id AND r.kind IN $kinds
DELETE r
