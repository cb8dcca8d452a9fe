// Name of each entity $ids of KG $kg, and the KG's format (how its ids read as IRIs: kgagents.loaders.entity_iri).
MATCH (k:KG {name: $kg})
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {kg: $kg, id: id})
RETURN k.format AS format, id, e.name AS name
