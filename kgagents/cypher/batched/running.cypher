// The ids of the batched loads some open transaction is running right now (their guard transactions carry
// the load id in their metadata); a 'loading' record not listed here belongs to a load that died.
SHOW TRANSACTIONS YIELD metaData
WHERE metaData.kgagents_load IS NOT NULL
RETURN collect(DISTINCT metaData.kgagents_load) AS ids
