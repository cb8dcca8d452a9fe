// Drop the named index if it exists (e.g. before re-embedding with a model of another dimension).
DROP INDEX $index_name IF EXISTS
