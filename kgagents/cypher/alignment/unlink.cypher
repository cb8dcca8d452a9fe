// Remove the [:ALIGNED] links a previous load of alignment $alignment made, found through its stored cell lists.
MATCH (al:Alignment {name: $alignment})
UNWIND range(0, size(al.cell_entity1) - 1) AS i
WITH DISTINCT al.cell_entity1[i] AS e1, al.cell_entity2[i] AS e2
MATCH (:Resource {uri: e1})-[link:ALIGNED {alignment: $alignment}]->(:Resource {uri: e2})
DELETE link
