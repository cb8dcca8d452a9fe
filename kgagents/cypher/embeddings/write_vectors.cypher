// Store a batch of vectors (compact float32 storage) with the hash of the text they were computed from.
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.id
CALL db.create.setNodeVectorProperty(n, $vector_property, row.vector)
SET n[$sha_property] = row.sha
