// Which of $texts already have a stored vector in one KG's path space (`kgqa prepare` embeds only the others).
MATCH (p:PathText {kg: $kg, space: $space})
WHERE p.text IN $texts
RETURN p.text AS text
