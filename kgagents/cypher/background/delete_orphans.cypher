// Mediators no background statement uses any more.
UNWIND $rows AS row
MATCH (m:Mediator)
WHERE NOT (m)--()
DELETE m
