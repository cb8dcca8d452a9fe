// Every instance of an A-Box with its assertions and reference-KG links (for Turtle export and scoring).
MATCH (n:Instance {abox: $abox})
OPTIONAL MATCH (n)-[r:RELATES|HAS_VALUE]->(o)
WITH n, collect(CASE WHEN r IS NULL THEN NULL
                     ELSE {property: r.property, name: r.name, iri: o.iri, label: o.label, value: o.value,
                           datatype: o.datatype} END) AS assertions
OPTIONAL MATCH (n)-[:OWL_SAME_AS]->(e:Entity)
RETURN n.iri AS iri, n.class AS class, n.label AS label, assertions,
       [x IN collect(e) | {kg: x.kg, id: x.id}] AS same_as
ORDER BY n.iri
