// Which of $files were loaded as background (kgagents.loaders.background records each load).
MATCH (l:Load {kind: 'background'})
WHERE l.target IN $files
RETURN DISTINCT l.target AS file
