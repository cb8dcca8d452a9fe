// Template ({{source_label}}, {{target_label}}): pairs of nodes of two scopes that reach the same (:MatchKey) of a kind in
// $kinds; the maps $sources / $targets (keys; null: the whole scope) limit the two sides, target keys in the map $exclude are skipped.
MATCH (s:{{source_label}})-[a:HAS_KEY]->(k:MatchKey)<-[b:HAS_KEY]-(t:{{target_label}})
WHERE a.kind IN $kinds AND b.kind = a.kind
  AND ($sources IS NULL OR $sources[coalesce(s.uri, s.id)] IS NOT NULL)
  AND ($targets IS NULL OR $targets[coalesce(t.uri, t.id)] IS NOT NULL)
  AND ($source.key IS NULL
       OR CASE WHEN $source.many THEN $source.value IN s[$source.key] ELSE s[$source.key] = $source.value END)
  AND ($target.key IS NULL
       OR CASE WHEN $target.many THEN $target.value IN t[$target.key] ELSE t[$target.key] = $target.value END)
  AND $exclude[coalesce(t.uri, t.id)] IS NULL
RETURN coalesce(s.uri, s.id) AS source, coalesce(t.uri, t.id) AS target, k.kind AS kind,
       a.synonym AS source_synonym, b.synonym AS target_synonym
ORDER BY source, target, kind
