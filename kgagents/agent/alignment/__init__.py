"""EA-Agent entity alignment between two knowledge graphs in Neo4j (JAPE pairs: DBP15K, SRPRS)."""
