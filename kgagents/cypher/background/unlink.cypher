// A background file's earlier statements, removed before it is written again (a reload equals a fresh load).
UNWIND $rows AS row
MATCH ()-[b:BACKGROUND {file: row.file}]->()
DELETE b
