// Remove one A-Box: its instances (with their relationships) and its literal values.
MATCH (n) WHERE (n:Instance OR n:LiteralValue) AND n.abox = $abox
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
