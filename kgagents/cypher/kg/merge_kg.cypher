// One (:KG) node per knowledge graph name; its properties (source file, format, language, …) are set or updated.
MERGE (k:KG {name: $name})
SET k += $props
