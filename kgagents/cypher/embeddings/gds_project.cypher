// Template ({{source_label}}, {{target_label}}): project the vectors of two scopes into a GDS graph, labelled Source / Target (a node may be both).
MATCH (n:{{source_label}}|{{target_label}})
WHERE n[$vector_property] IS NOT NULL
WITH n,
     ($source.label IN labels(n)
      AND ($source.key IS NULL
           OR CASE WHEN $source.many THEN $source.value IN n[$source.key] ELSE n[$source.key] = $source.value END)) AS is_source,
     ($target.label IN labels(n)
      AND ($target.key IS NULL
           OR CASE WHEN $target.many THEN $target.value IN n[$target.key] ELSE n[$target.key] = $target.value END)) AS is_target
WHERE is_source OR is_target
WITH gds.graph.project($graph_name, n, null, {
       sourceNodeLabels: [label IN [CASE WHEN is_source THEN 'Source' END, CASE WHEN is_target THEN 'Target' END]
                          WHERE label IS NOT NULL],
       targetNodeLabels: [],
       sourceNodeProperties: {embedding: n[$vector_property]},
       targetNodeProperties: {}
     }) AS g,
     sum(toInteger(is_source)) AS sources,
     sum(toInteger(is_target)) AS targets
RETURN g.nodeCount AS nodes, sources, targets
