// Create or replace the (:Alignment {name}) node: header, counts, and every raw cell as parallel lists.
MERGE (al:Alignment {name: $alignment})
SET al.file = $file, al.onto1 = $onto1, al.onto2 = $onto2, al.uri1 = $uri1, al.uri2 = $uri2,
    al.level = $level, al.type = $type,
    al.cells = $cells, al.linked = $linked, al.missing = $missing,
    al.cell_entity1 = $entity1, al.cell_entity2 = $entity2,
    al.cell_relation = $relation, al.cell_measure = $measure
