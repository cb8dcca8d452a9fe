"""Files → graph. Each loader parses its whole input first (so a bad file writes nothing), then writes
in one transaction with batched, parameterised ``UNWIND … MERGE`` (so loading twice changes nothing),
and records the load as a ``(:Load)`` node."""
