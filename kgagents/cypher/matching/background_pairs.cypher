// Pairs of a source and a target entity (of one kind) that the background files $files relate: directly, through
// one mediator, or through two mediators one below the other (the mediators' own hierarchy). Each row gives the
// path's edges in order from the source: relation, whether the edge points along the path, confidence.
MATCH (s:Resource)-[b:BACKGROUND]-(t:Resource)
WHERE b.file IN $files AND $source IN s.ontologies AND $target IN t.ontologies
  AND ((s:Class AND t:Class) OR (s:Relationship AND t:Relationship) OR (s:Property AND t:Property))
RETURN s.uri AS source, t.uri AS target, null AS via, [b.relation] AS relations, [startNode(b) = s] AS along,
       [b.confidence] AS confidences
UNION ALL
MATCH (s:Resource)-[b1:BACKGROUND]-(m:Mediator)-[b2:BACKGROUND]-(t:Resource)
WHERE b1.file IN $files AND b2.file IN $files AND $source IN s.ontologies AND $target IN t.ontologies
  AND ((s:Class AND t:Class) OR (s:Relationship AND t:Relationship) OR (s:Property AND t:Property))
RETURN s.uri AS source, t.uri AS target, m.uri AS via, [b1.relation, b2.relation] AS relations,
       [startNode(b1) = s, startNode(b2) = m] AS along, [b1.confidence, b2.confidence] AS confidences
UNION ALL
MATCH (s:Resource)-[b1:BACKGROUND]-(m1:Mediator)-[h:BACKGROUND {relation: 'narrow'}]-(m2:Mediator)-[b2:BACKGROUND]-(t:Resource)
WHERE $hierarchy AND b1.file IN $files AND h.file IN $files AND b2.file IN $files
  AND $source IN s.ontologies AND $target IN t.ontologies
  AND ((s:Class AND t:Class) OR (s:Relationship AND t:Relationship) OR (s:Property AND t:Property))
RETURN s.uri AS source, t.uri AS target, m1.uri + ' ' + m2.uri AS via, [b1.relation, h.relation, b2.relation] AS relations,
       [startNode(b1) = s, startNode(h) = m1, startNode(b2) = m2] AS along,
       [b1.confidence, h.confidence, b2.confidence] AS confidences
