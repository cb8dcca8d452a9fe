// Batched load: English names, descriptions and aliases met in this batch (a Wikidata dump states them anywhere).
// rdfs:label wins over schema:name whichever batch comes first; aliases are merged without repeats.
UNWIND $rows AS row
MERGE (e:Entity {kg: $kg, id: row.id})
  ON CREATE SET e.name = row.id, e.load = $load
SET e.name = CASE WHEN row.label IS NOT NULL THEN row.label
                  WHEN row.schema_name IS NOT NULL AND e.name = e.id THEN row.schema_name
                  ELSE e.name END,
    e.description = coalesce(row.description, e.description),
    e.aliases = CASE WHEN row.aliases IS NULL THEN e.aliases
                     ELSE reduce(acc = coalesce(e.aliases, []), a IN row.aliases |
                                 CASE WHEN a IN acc THEN acc ELSE acc + a END) END
