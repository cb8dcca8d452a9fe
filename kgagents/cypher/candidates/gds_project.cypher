// Template ({{target_label}}): project the target scope's vectors (minus keys in the map $exclude) and the source
// nodes' vectors (rows {key, id}) into GDS graph $graph_name as one property `embedding`, labelled Source / Target;
// returns the projected sources' element ids and the number of targets.
CALL () {
  MATCH (n:{{target_label}})
  WHERE n[$vector_property] IS NOT NULL
    AND ($target.key IS NULL
         OR CASE WHEN $target.many THEN $target.value IN n[$target.key] ELSE n[$target.key] = $target.value END)
    AND $exclude[coalesce(n.uri, n.id, elementId(n))] IS NULL
  RETURN n, 0 AS is_source, 1 AS is_target
  UNION ALL
  UNWIND $sources AS src
  MATCH (n) WHERE elementId(n) = src.id AND n[$source_vector_property] IS NOT NULL
  RETURN n, 1 AS is_source, 0 AS is_target
}
WITH n, max(is_source) = 1 AS is_source, max(is_target) = 1 AS is_target
WITH gds.graph.project($graph_name, n, null, {
       sourceNodeLabels: [label IN [CASE WHEN is_source THEN 'Source' END, CASE WHEN is_target THEN 'Target' END]
                          WHERE label IS NOT NULL],
       targetNodeLabels: [],
       sourceNodeProperties: {embedding: CASE WHEN is_source THEN n[$source_vector_property]
                                              ELSE n[$vector_property] END},
       targetNodeProperties: {}
     }) AS g,
     collect(CASE WHEN is_source THEN elementId(n) END) AS sources,
     sum(toInteger(is_target)) AS targets
RETURN g.nodeCount AS nodes, sources, targets
