"""The matcher's LLM steps — describe, verbalise, validate, other names — behind one small object.

Every call goes through the agent's chat model, which its ledger wraps, so requests, tokens and seconds are counted
per run (the run's totals come from the ledger, not from counting here). Texts are written to the graph per batch,
so a resumed run only asks for what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgagents.agent.matching import prompts
from kgagents.agent.matching.entities import Entity, store_texts
from kgagents.errors import StructuredOutputError
from kgagents.graph.connection import Graph
from kgagents.llm import ChatModel, ask_yes_no, yes_log_odds

TEXT_BATCH = 16
TEXT_MAX_TOKENS = 96  # one sentence; caps how long a small model may ramble
NAMES_MAX_TOKENS = 48  # five short names
MAX_OTHER_NAMES = 5
MAX_NAME_WORDS = 6  # longer is a description, not a name
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


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

    def names_to_ask(self, graph: Graph, entities: Sequence[Entity]) -> list[Entity]:
        """The entities :meth:`other_names` would ask the model about: those it has no stored answer for."""
        return self._missing(graph, entities, "om_other_names")

    def other_names(self, graph: Graph, entities: Sequence[Entity], context: str) -> dict[str, list[str]]:
        """uri → the other names the model lists for the entity (:func:`parse_names`), asked once per entity and
        model: the answer is stored on the entity (``om_other_names``), so another pair or a resumed run reuses it."""
        todo = self.names_to_ask(graph, entities)
        for start in range(0, len(todo), TEXT_BATCH):
            texts = {}
            for e in todo[start : start + TEXT_BATCH]:
                reply = self.chat.complete(prompts.other_names(e, context), purpose="other names",
                                           max_tokens=NAMES_MAX_TOKENS)
                texts[e.uri] = {"om_other_names": "\n".join(parse_names(reply.text, e)),
                                "om_other_names_model": self.model_name}
            store_texts(graph, texts)
        rows = graph.run("matching/other_names", uris=[e.uri for e in entities], model=self.model_name)
        return {r["uri"]: [n for n in r["names"].split("\n") if n] for r in rows}


def parse_names(text: str, entity: Entity) -> list[str]:
    """The names of a model's list, one per line: list marks and quotes stripped, a line that is no name (empty,
    longer than :data:`MAX_NAME_WORDS` words, or one of the entity's own names) left out; at most
    :data:`MAX_OTHER_NAMES`."""
    own = {n.casefold() for n in (entity.name, entity.display, *entity.labels, *entity.synonyms)}
    names: list[str] = []
    for line in text.splitlines():
        name = _LIST_MARK.sub("", line).strip().strip("\"'`").strip()
        if name and len(name.split()) <= MAX_NAME_WORDS and name.casefold() not in own and name not in names:
            names.append(name)
    return names[:MAX_OTHER_NAMES]
