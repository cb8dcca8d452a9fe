// Store synthetic benchmark vectors (compact float32 storage) as (:SyntheticVector {set, id, vec}).
UNWIND $rows AS row
CREATE (n:SyntheticVector {set: $set, id: row.id})
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'vec', row.vector)
