// Everything asserted from and to one instance: relations both ways and attribute values.
MATCH (n:Instance {abox: $abox, iri: $iri})
OPTIONAL MATCH (n)-[r:RELATES|HAS_VALUE]->(o)
WITH n, collect(CASE WHEN r IS NULL THEN NULL
                     ELSE {direction: 'out', property: r.name, iri: o.iri, label: o.label, value: o.value} END) AS outgoing
OPTIONAL MATCH (i:Instance)-[r2:RELATES]->(n)
RETURN n.label AS label, n.class_name AS class, outgoing,
       [x IN collect(CASE WHEN r2 IS NULL THEN NULL
                          ELSE {direction: 'in', property: r2.name, iri: i.iri, label: i.label} END) WHERE x IS NOT NULL] AS incoming
