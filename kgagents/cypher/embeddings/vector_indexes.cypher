// Every node vector index with its label, property, dimension, similarity function and state.
SHOW VECTOR INDEXES YIELD name, state, entityType, labelsOrTypes, properties, options
WHERE entityType = 'NODE'
RETURN name, state, labelsOrTypes[0] AS label, properties[0] AS property,
       options.indexConfig.`vector.dimensions` AS dimensions,
       toLower(options.indexConfig.`vector.similarity_function`) AS similarity
