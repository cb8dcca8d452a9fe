// The running server's home directory: which local instance answers on this port.
SHOW SETTINGS YIELD name, value
WHERE name = 'server.directories.neo4j_home'
RETURN value AS home
