// Store channel texts on entities: each row is {uri, props: {om_<channel>: text, ...}}.
UNWIND $rows AS row
MATCH (r:Resource {uri: row.uri})
SET r += row.props
