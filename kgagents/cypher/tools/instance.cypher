// One instance of an A-Box by IRI: its class and label (no row when it does not exist).
MATCH (n:Instance {abox: $abox, iri: $iri})
RETURN n.class AS class, n.label AS label
