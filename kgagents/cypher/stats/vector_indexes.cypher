// Vector indexes and their state.
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, state
RETURN name, labelsOrTypes[0] AS label, properties[0] AS property, state
ORDER BY name
