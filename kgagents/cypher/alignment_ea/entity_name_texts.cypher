// Every name of every entity of KG $kg (string properties name, name_*, label, label_*; not the *_sha hashes stored beside vectors) with the hash and presence of its multilingual name vector $vector_property: input of the name-variant embedding.
MATCH (e:Entity {kg: $kg})
RETURN elementId(e) AS node,
       [k IN keys(e) WHERE (k = 'name' OR k STARTS WITH 'name_' OR k = 'label' OR k STARTS WITH 'label_')
                           AND NOT k ENDS WITH '_sha' AND e[k] IS :: STRING | e[k]] AS names,
       e[$sha_property] AS sha,
       e[$vector_property] IS NOT NULL AS has_vector
