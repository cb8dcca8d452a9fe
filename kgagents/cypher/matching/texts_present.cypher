// Which of these entities already carry an LLM text for $property written by $model (resume: skip them).
UNWIND $uris AS uri
MATCH (r:Resource {uri: uri})
WHERE r[$property] IS NOT NULL AND r[$property + '_model'] = $model
RETURN uri
