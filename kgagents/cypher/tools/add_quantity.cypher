// OM-2 quantity: (subject)-[property]->(quantity)-[om:hasValue]->(measure) with om:hasNumericalValue
// and om:hasUnit -> (unit). Quantity and measure keys come from subject, property, value and unit,
// so the same call twice writes nothing new.
MATCH (s:Instance {abox: $abox, iri: $subject})
MERGE (q:Instance {abox: $abox, class: $quantity_class, key: $key})
  ON CREATE SET q.iri = $quantity_iri, q.label = $label, q.class_name = $quantity_name, q.created_at = datetime()
MERGE (s)-[r:RELATES {property: $property}]->(q)
  ON CREATE SET r.name = $name, r.created_at = datetime()
MERGE (m:Instance {abox: $abox, class: $measure_class, key: $key})
  ON CREATE SET m.iri = $measure_iri, m.label = $label, m.class_name = 'Measure', m.created_at = datetime()
MERGE (q)-[hv:RELATES {property: $has_value}]->(m)
  ON CREATE SET hv.name = 'hasValue'
MERGE (u:Instance {abox: $abox, class: $unit_class, key: $unit_key})
  ON CREATE SET u.iri = $unit_iri, u.label = $unit_name, u.class_name = 'Unit', u.created_at = datetime()
MERGE (m)-[hu:RELATES {property: $has_unit}]->(u)
  ON CREATE SET hu.name = 'hasUnit'
MERGE (v:LiteralValue {abox: $abox, datatype: $double, value: $value})
MERGE (m)-[hn:HAS_VALUE {property: $has_numerical_value}]->(v)
  ON CREATE SET hn.name = 'hasNumericalValue'
RETURN q.iri AS iri
