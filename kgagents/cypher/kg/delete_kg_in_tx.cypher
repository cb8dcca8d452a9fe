// Delete one KG inside the caller's transaction (a JAPE pair replacing its previous sides): entities with their
// relationships, literals, relation catalogue and the KG node. Load records stay as history.
CALL () { MATCH (e:Entity {kg: $kg}) DETACH DELETE e }
CALL () { MATCH (l:Literal {kg: $kg}) DETACH DELETE l }
CALL () { MATCH (r:Relation {kg: $kg}) DETACH DELETE r }
OPTIONAL MATCH (k:KG {name: $kg})
DETACH DELETE k
