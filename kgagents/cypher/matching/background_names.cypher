// The names background files ($files) give entities ($uris) they tie — a bridge's label of a class, e.g. Uberon's
// "serosa of intestine" for the MA class "intestine serosa" (kgagents.loaders.background): per entity, its names.
MATCH (c:Resource)-[b:BACKGROUND]-()
WHERE c.uri IN $uris AND b.file IN $files
WITH c, CASE WHEN startNode(b) = c THEN b.a_names ELSE b.b_names END AS names
UNWIND coalesce(names, []) AS name
RETURN c.uri AS uri, collect(DISTINCT name) AS names
