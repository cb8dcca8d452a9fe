// One [:ALIGNED {alignment, relation, measure}] per row {entity1, entity2, relation, measure} between existing resources.
UNWIND $rows AS row
MATCH (a:Resource {uri: row.entity1})
MATCH (b:Resource {uri: row.entity2})
MERGE (a)-[link:ALIGNED {alignment: $alignment, relation: row.relation}]->(b)
SET link.measure = row.measure
