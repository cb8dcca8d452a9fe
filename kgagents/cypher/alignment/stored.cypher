// The (:Alignment {name}) node with its stored cell lists.
MATCH (al:Alignment {name: $alignment})
RETURN al AS alignment
