// Template ({{label}}, {{property}} are validated identifiers): create a node vector index; name and options are parameters.
CREATE VECTOR INDEX $index_name IF NOT EXISTS
FOR (n:{{label}}) ON n.{{property}}
OPTIONS $options
