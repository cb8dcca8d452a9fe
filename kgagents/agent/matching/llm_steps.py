"""The matcher's LLM steps — describe, verbalise, validate — behind one small object.

Every call goes through the agent's chat model, which its ledger wraps, so requests, tokens and seconds are counted
per run (the run's totals come from the ledger, not from counting here). Texts are written to the graph per batch,
so a resumed run only asks for what is missing.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgagents.agent.matching import prompts
from kgagents.agent.matching.entities import Entity, store_texts
from kgagents.errors import StructuredOutputError
from kgagents.graph.connection import Graph
from kgagents.llm import ChatModel, ask_yes_no, yes_log_odds

TEXT_BATCH = 16
TEXT_MAX_TOKENS = 96  # one sentence; caps how long a small model may ramble


class LLMSteps:
    """Agent-OM's LLM work, through ``chat`` (the agent's ledgered chat model)."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    @property
    def model_name(self) -> str:
        return self.chat.model_name

    def _missing(self, graph: Graph, entities: Sequence[Entity], prop: str) -> list[Entity]:
        uris = {row["uri"] for row in graph.run("matching/texts_present", uris=[e.uri for e in entities],
                                                property=prop, model=self.model_name)}
        return [e for e in entities if e.uri not in uris]

    def write_texts(self, graph: Graph, entities: Sequence[Entity], channels: Sequence[str], context: str) -> None:
        """LLM texts for the lexical and semantic channels (only those enabled and not yet stored)."""
        if "lexical" in channels:
            todo = self._missing(graph, entities, "om_lexical")
            for start in range(0, len(todo), TEXT_BATCH):
                batch = todo[start : start + TEXT_BATCH]
                texts = {}
                for e in batch:
                    reply = self.chat.complete(prompts.describe(e, context), purpose="describe",
                                               max_tokens=TEXT_MAX_TOKENS)
                    texts[e.uri] = {"om_lexical": reply.text.strip(), "om_lexical_model": self.model_name}
                store_texts(graph, texts)
        if "semantic" in channels:
            todo = self._missing(graph, entities, "om_semantic")
            for start in range(0, len(todo), TEXT_BATCH):
                batch = todo[start : start + TEXT_BATCH]
                rows = {r["uri"]: r for r in graph.run("matching/neighbourhood", uris=[e.uri for e in batch])}
                texts = {}
                for e in batch:
                    facts = {k: v for k, v in rows[e.uri].items() if k != "uri" and v}
                    if not facts:
                        texts[e.uri] = {"om_semantic": e.display, "om_semantic_model": self.model_name}
                        continue
                    reply = self.chat.complete(prompts.verbalise(e, facts), purpose="verbalise",
                                               max_tokens=TEXT_MAX_TOKENS)
                    texts[e.uri] = {"om_semantic": reply.text.strip(), "om_semantic_model": self.model_name}
                store_texts(graph, texts)

    def validate(self, source: Entity, candidate: Entity, context: str,
                 min_log_odds: float | None = None) -> tuple[bool, str, float | None]:
        """(confirmed, reason, log-odds). Without ``min_log_odds``: the model's yes/no with its reason (an answer
        that is neither, even after the repair retry, counts as no). With it: one one-token call, confirmed when
        the log-odds of "yes" reach ``min_log_odds`` (a threshold learned on train pairs, ``bench om-gate
        --graded``): the small model's text says yes too easily, its log-odds still rank the pairs."""
        question = prompts.validate(source, candidate, context)
        if min_log_odds is not None:
            odds = yes_log_odds(self.chat, [{"role": "user", "content": question}], purpose="validate")
            return odds >= min_log_odds, f"log-odds {odds:+.2f} (confirmed from {min_log_odds:+.2f})", odds
        try:
            ok, reason = ask_yes_no(self.chat, question, purpose="validate")
        except StructuredOutputError as exc:
            return False, f"unparseable answer treated as no: {exc}", None
        return ok, reason, None
