// Every name the dataset gives each entity of KG $kg (URI name, translations, labels in any language; string properties name, name_*, label, label_*): input of the exact-name signal.
MATCH (e:Entity {kg: $kg})
RETURN e.id AS id,
       [k IN keys(e) WHERE (k = 'name' OR k STARTS WITH 'name_' OR k = 'label' OR k STARTS WITH 'label_')
                           AND NOT k ENDS WITH '_sha' AND e[k] IS :: STRING | e[k]] AS names
