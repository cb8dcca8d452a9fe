// The names of the loaded KGs (a KG node is written when a load completes); an unknown name's error lists them.
MATCH (k:KG)
RETURN k.name AS name
ORDER BY name
