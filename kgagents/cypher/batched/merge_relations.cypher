// Batched load: the relation catalogue rows first met in this batch; a new one carries the load's id.
UNWIND $rows AS row
MERGE (r:Relation {kg: $kg, id: row.id})
  ON CREATE SET r.load = $load
SET r += row.props
