// Ids of the KG's literal-statement nodes already stored, so a re-load creates none of them again.
MATCH (l:Literal {kg: $kg})
RETURN l.id AS id
