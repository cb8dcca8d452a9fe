// Remove the [:ALIGNED] links of entity alignment $alignment from the entities of KG $kg1 (before it is written again).
MATCH (:Entity {kg: $kg1})-[link:ALIGNED {alignment: $alignment}]->(:Entity)
DELETE link
