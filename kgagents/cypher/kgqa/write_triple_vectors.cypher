// One reading's vector (compact float32) onto every relationship whose reading has that text, with the text hash.
UNWIND $rows AS row
UNWIND row.ids AS id
MATCH ()-[r]->() WHERE elementId(r) = id
CALL db.create.setRelationshipVectorProperty(r, $vector_property, row.vector)
SET r[$sha_property] = row.sha
