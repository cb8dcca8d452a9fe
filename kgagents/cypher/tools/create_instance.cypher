// Create an instance, or return the one with the same (class, key): MERGE backed by tool_instance_key.
MERGE (n:Instance {abox: $abox, class: $class, key: $key})
  ON CREATE SET n.iri = $iri, n.label = $label, n.class_name = $class_name, n.created_at = datetime()
RETURN n.iri AS iri
