// The URIs among $rows (each {uri}) that exist as (:Resource) nodes.
UNWIND $rows AS row
MATCH (r:Resource {uri: row.uri})
RETURN r.uri AS uri
