// The path texts of one KG whose vectors were computed before in one path space ($space: the encoders and their
// weights), so a new run does not embed them again (kgqa/pathtexts.py).
MATCH (p:PathText {kg: $kg, space: $space})
RETURN p.text AS text, p.vector AS vector
