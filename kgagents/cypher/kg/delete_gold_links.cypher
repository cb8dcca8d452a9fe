// Every gold link of one entity-alignment dataset (a re-load writes its links afresh, with their new split).
MATCH ()-[g:GOLD_LINK {dataset: $dataset}]->()
DELETE g
