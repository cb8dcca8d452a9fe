"""The LLM layer: chat models, structured answers, the call ledger, the offline models and parallel slots.

Rules for agent authors (they make the embedded model fast and its answers usable):

* **Shared prefix first, identical.** llama-server keeps each slot's last prompt and re-evaluates only what
  differs after the longest common prefix (``cache_prompt``, sent by the client). Put what every call of a
  step shares — instructions, the ontology's or tool's description, few-shot examples — first and byte-for-byte
  the same in every call; put the item (the entity, the question, the candidate) last. A timestamp, a counter
  or a shuffled list early in the prompt turns every call into a full prompt evaluation (the 1.5B model reads
  ~100 prompt tokens/s on 2 cores, so 2,000 re-read tokens cost 20 s).
* **Ask for a schema.** Use :func:`structured`, :func:`ask_yes_no` or :func:`pick_one` (or pass ``json_schema``
  to ``complete`` and parse with :func:`extract_json`): the endpoint then decodes under the schema where it can,
  and the parse-and-repair fallback covers endpoints that cannot. Keep ``max_tokens`` tight.
* **Independent items in parallel.** :func:`map_on_slots` maps a function over items on as many threads as the
  endpoint has slots (``kgagents llm start --parallel N``; ``KGAGENTS_LLM_PARALLEL`` for another endpoint), and
  runs them one by one when it has one.
* **Every call through a ledger** (:meth:`Ledger.wrap`): calls, tokens, seconds, and per purpose the
  constrained / fallback / parse-failure counts (:meth:`Ledger.outcomes`) are then reported for every run.
"""

from kgagents.llm.client import ChatModel, ChatResult, Message, OpenAIChatModel, resolve_chat_model
from kgagents.llm.langchain import LangChainChatModel, as_chat_model
from kgagents.llm.ledger import CallRecord, Ledger, LedgeredChatModel, LedgerTotals, PurposeOutcomes
from kgagents.llm.models import LOCAL_MODELS, LocalModel
from kgagents.llm.parallel import map_on_slots
from kgagents.llm.structured import (
    ask_with_repair,
    ask_yes_no,
    extract_json,
    option_log_probs,
    parse_choice,
    parse_yes_no,
    pick_one,
    structured,
    yes_log_odds,
)

__all__ = [
    "LOCAL_MODELS",
    "CallRecord",
    "ChatModel",
    "ChatResult",
    "LangChainChatModel",
    "Ledger",
    "LedgerTotals",
    "LedgeredChatModel",
    "LocalModel",
    "Message",
    "OpenAIChatModel",
    "PurposeOutcomes",
    "as_chat_model",
    "ask_with_repair",
    "ask_yes_no",
    "extract_json",
    "option_log_probs",
    "map_on_slots",
    "parse_choice",
    "parse_yes_no",
    "pick_one",
    "resolve_chat_model",
    "structured",
    "yes_log_odds",
]
