// Removing a failed batched load, 3: its record stays as history, marked failed with the reason.
MATCH (l:Load {id: $id})
SET l.status = 'failed', l.error = $error, l.failed_at = datetime()
