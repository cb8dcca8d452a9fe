// One ontology's hierarchy and disjointness as the alignment repair reads them: every resource of $ontology with its
// direct super classes / super properties, the classes declared disjoint with it, and (for a property) its domain
// and range classes, each edge asserted by $ontology.
MATCH (r:Resource)
WHERE $ontology IN r.ontologies
RETURN r.uri AS uri,
       [(r)-[e:SCO|SPO]->(p:Resource) WHERE $ontology IN e.ontologies | p.uri] AS parents,
       [(r)-[e:DISJOINT_WITH]-(d:Resource) WHERE $ontology IN e.ontologies | d.uri] AS disjoint,
       [(r)-[e:DOMAIN]->(d:Resource) WHERE $ontology IN e.ontologies | d.uri] AS domains,
       [(r)-[e:RANGE]->(d:Resource) WHERE $ontology IN e.ontologies | d.uri] AS ranges
