// The KGs an entity-alignment pair wrote before (its sides), with the hash of the files they were read from.
MATCH (k:KG {pair: $pair})
RETURN k.name AS name, k.sha256 AS sha256
