// One (:LLMCall) per recorded chat-model call (id is a random hex string), so repeated flushes merge, not duplicate.
CREATE CONSTRAINT llm_call_id IF NOT EXISTS FOR (c:LLMCall) REQUIRE c.id IS UNIQUE;
