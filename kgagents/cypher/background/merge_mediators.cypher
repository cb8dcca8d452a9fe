// The identifiers of a background file that name no loaded class: mediators (e.g. Uberon classes of a bridge).
UNWIND $rows AS row
MERGE (:Mediator {uri: row.uri})
