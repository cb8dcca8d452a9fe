// The mediators the background files $files assign each entity of the two ontologies to (one edge away): an
// equivalence, or the entity stated below the mediator — not a cross-reference, and not a mediator below the entity.
// For the background's judgement of the other stages' pairs (kgagents.agent.matching.agreement). `defined`: some
// edge is an equivalence (exact, or owl:equivalentClass to an intersection: a definition by the mediator), not only
// the entity stated below one.
MATCH (r:Resource)-[b:BACKGROUND]-(m:Mediator)
WHERE b.file IN $files AND ($source IN r.ontologies OR $target IN r.ontologies)
  AND (b.relation = 'exact' OR (b.relation = 'narrow' AND startNode(b) = r))
RETURN r.uri AS uri, collect(DISTINCT m.uri) AS mediators,
       any(e IN collect(b) WHERE e.relation = 'exact'
           OR e.predicate = 'http://www.w3.org/2002/07/owl#equivalentClass') AS defined
