// Remove every A-Box whose name starts with $prefix (a benchmark's per-sentence A-Boxes).
MATCH (n) WHERE (n:Instance OR n:LiteralValue) AND n.abox STARTS WITH $prefix
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
