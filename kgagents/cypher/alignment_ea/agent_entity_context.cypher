// Name, attribute names and relation triples (outgoing and incoming, within KG $kg) of the entities with ids $ids: what the EA-Agent's tools select from.
UNWIND $ids AS eid
MATCH (e:Entity {kg: $kg, id: eid})
RETURN e.id AS id, coalesce(e.name_en, e.name) AS name, coalesce(e.attributes, []) AS attributes,
       [(e)-[r]->(n:Entity {kg: $kg}) WHERE r.rel IS NOT NULL
        | {direction: 'out', rel: r.rel, relation: coalesce(r.name, r.rel), other: coalesce(n.name_en, n.name, n.id)}]
     + [(e)<-[r]-(n:Entity {kg: $kg}) WHERE r.rel IS NOT NULL
        | {direction: 'in', rel: r.rel, relation: coalesce(r.name, r.rel), other: coalesce(n.name_en, n.name, n.id)}] AS triples
