// Remove the path examples of the given questions (by question key) before they are learned again.
MATCH (x:PathExample {kg: $kg})
WHERE x.question_key IN $keys
DETACH DELETE x
