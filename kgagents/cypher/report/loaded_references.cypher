// Alignments loaded into the graph with links between two ontologies (either direction), most links first;
// forward counts the links from $source to $target.
MATCH (a:Resource)-[l:ALIGNED]->(b:Resource)
WHERE ($source IN a.ontologies AND $target IN b.ontologies) OR ($target IN a.ontologies AND $source IN b.ontologies)
RETURN l.alignment AS name, count(l) AS links,
       sum(CASE WHEN $source IN a.ontologies AND $target IN b.ontologies THEN 1 ELSE 0 END) AS forward
ORDER BY links DESC, name
