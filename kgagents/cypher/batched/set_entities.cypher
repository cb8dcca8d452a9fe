// Batched load: the properties (name, description, eid, …) of entities the batch mentions, by node id.
UNWIND $rows AS row
MATCH (e:Entity) WHERE id(e) = row[0]
SET e += row[1]
