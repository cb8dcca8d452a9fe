// Drop a projected GDS graph if it exists.
CALL gds.graph.drop($graph_name, false) YIELD graphName
RETURN graphName
