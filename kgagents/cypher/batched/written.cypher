// What a load left in one KG: the entities and catalogue relations it created (its statements hang off them).
RETURN COUNT { MATCH (n:Entity {kg: $kg}) WHERE n.load = $load } AS entities,
       COUNT { MATCH (n:Relation {kg: $kg}) WHERE n.load = $load } AS relations
