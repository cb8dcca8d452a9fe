"""The LLM layer: chat models, structured answers, the call ledger and the embedded local model."""

from kgagents.llm.client import ChatModel, ChatResult, Message, OpenAIChatModel, resolve_chat_model
from kgagents.llm.langchain import LangChainChatModel, as_chat_model
from kgagents.llm.ledger import CallRecord, Ledger, LedgeredChatModel, LedgerTotals
from kgagents.llm.local_server import LOCAL_MODELS, LocalLLMServer, LocalServerStatus
from kgagents.llm.structured import ask_yes_no, extract_json, parse_choice, parse_yes_no, pick_one, structured

__all__ = [
    "LOCAL_MODELS",
    "CallRecord",
    "ChatModel",
    "ChatResult",
    "LangChainChatModel",
    "Ledger",
    "LedgerTotals",
    "LedgeredChatModel",
    "LocalLLMServer",
    "LocalServerStatus",
    "Message",
    "OpenAIChatModel",
    "as_chat_model",
    "ask_yes_no",
    "extract_json",
    "parse_choice",
    "parse_yes_no",
    "pick_one",
    "resolve_chat_model",
    "structured",
]
