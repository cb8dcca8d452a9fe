"""The texts ODA's LLM steps send, over relation paths: the action choice and the reflection.

Each call is two messages: a fixed system message (the same for every question of a run, so an inference server's
prompt cache reuses it) and a user message with the question, the remembered paths (from the reflection), the
path memory's suggestion, the observed paths (numbered, each with its first end entities and its size) and the
actions taken. Replies are one JSON object, constrained by a JSON schema where the server supports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.agent.kgqa.paths import ObservedPath, numbered
from kgagents.llm.structured import LETTERS

ANSWER, GET_PATH, GET_NEIGHBOR = "answer", "get_path", "get_neighbor"
ACTIONS = (ANSWER, GET_PATH, GET_NEIGHBOR)

ACTION_SYSTEM = (
    "You answer a question with a knowledge graph. Each numbered line is a relation path from the question's topic "
    "entity X, written as a phrase, followed by the entities it leads to (after =>, the first few and how many in "
    "all).\n"
    "Reply with one JSON object:\n"
    '{"action": "answer", "path": N} - path N is the phrase that means what the question asks (the usual reply);\n'
    '{"action": "get_path", "path": N} - only if no path fits: continue path N by one more relation;\n'
    '{"action": "get_neighbor", "entity": "NAME"} - only if no path fits: look around an entity shown.'
)

ACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": list(ACTIONS)},
                   "path": {"type": "integer", "minimum": 1},
                   "entity": {"type": "string"}},
    "required": ["action"],
}

REFLECT_SYSTEM = (
    "You answer questions with a knowledge graph. You see numbered relation paths found by the last action. "
    "Keep the paths that can lead to the answer of the question. Reply with one JSON object: "
    '{"keep": [numbers of the paths to keep]} (an empty list keeps none).'
)

REFLECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"keep": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
    "required": ["keep"],
}

GENERATE_SYSTEM = (
    "You answer questions with a knowledge graph. You see numbered relation paths found by the last action. "
    "Write the relation paths (relation names joined by ' → ') that lead to the answer of the question. Reply "
    'with one JSON object: {"paths": ["relation → relation", ...]}.'
)

GENERATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
    "required": ["paths"],
}


RANK_SYSTEM = (
    "You answer questions with a knowledge graph. Each option is a list of entities found in the graph, with the "
    "relation chain that reached them from the question's topic entity. Reply with the letter of the option that "
    "lists what the question asks for."
)

VERIFY_SYSTEM = "You check relation chains in a knowledge graph. Reply with yes or no."

#: the direct check's and the relation check's system message
QUESTION_SYSTEM = "You read questions about an entity X in a knowledge graph. Reply with yes or no."


def direct_prompt(question: str) -> str:
    """Whether a question's answer lies one relation from its topic (the topic masked as X): a question about X's
    own fact ("who directed X") against one that goes through other entities ("who directed the films X starred
    in") — which cosine similarity between question and path words tells apart poorly."""
    return (f"Question: {question}\nIs the answer a fact stored directly about X itself (not about other entities "
            "related to X)?")


def relation_prompt(question: str, relation: str) -> str:
    """Whether a question asks about one relation of the KG (by its readable name): "who wrote the film X" about
    "written by" rather than "directed by", which question–path cosines confuse (both are about films). The
    relation comes last, so a server's prompt cache reuses the question's part for every relation asked."""
    return f'Question: {question}\nDoes the question ask about the relation "{relation}"?'


def verify_prompt(question: str, topic: str, path: ObservedPath, ends: int) -> str:
    """One path as a yes/no question: the chain from the topic's name, the first ``ends`` entities it leads to."""
    sample = ", ".join(path.end_names[:ends])
    more = " ..." if path.size > ends else ""
    return (f"Question: {question}\nRelation chain: {topic} → {path.display}\nIt leads to: {sample}{more}\n"
            "Does this chain answer exactly what the question asks?")


def option_line(topic: str, path: ObservedPath, ends: int) -> str:
    """One option: the first ``ends`` entities a path reaches (and how many in all), then the chain from the topic.

    Why the entities first: asked to pick a relation chain, the 1.5B model prefers chains that repeat the
    question's words and continue past the answer ("directed by (inverse) → release year" for "which films did X
    direct"); asked which list of entities the question asks for, it looks at what the entities are."""
    names = ", ".join(path.end_names[:ends]) + (f", ... ({path.size} in all)" if path.size > ends else "")
    return f"{names} (reached by: {topic} → {path.display})"


def rank_prompt(question: str, topic: str, options: Sequence[ObservedPath], ends: int) -> str:
    """The re-ranking step's user message: the question and the options lettered A, B, … in the given order."""
    lines = "\n".join(f"{letter}. {option_line(topic, p, ends)}" for letter, p in zip(LETTERS, options, strict=False))
    return f"Question: {question}\nOptions:\n{lines}\nAnswer with one letter."


def _history(history: Sequence[Mapping[str, Any]]) -> str:
    done = [str(h["call"]) for h in history if h.get("call")]
    return "\n".join(f"- {c}" for c in done) if done else "(none)"


def _suggested(prior: Sequence[Mapping[str, Any]], shown: Sequence[ObservedPath]) -> str:
    """The memory's suggestion as path numbers of the shown list (paths the memory knows but are not shown are
    left out: the model can only name shown paths)."""
    index = {tuple(p.path): i for i, p in enumerate(shown, 1)}
    lines = [f"path {index[tuple(x['path'])]} ({round(100 * x['share'])} % of similar answered questions)"
             for x in prior if tuple(x["path"]) in index]
    return "; ".join(lines) if lines else "(none)"


def action_prompt(question: str, *, shown: Sequence[ObservedPath], memory: Sequence[ObservedPath],
                  prior: Sequence[Mapping[str, Any]], history: Sequence[Mapping[str, Any]], ends: int) -> str:
    """The action step's user message (see the module docstring)."""
    return (
        f"Question: {question}\n"
        f"Paths (best first):\n{numbered(shown, ends) or '(none)'}\n"
        f"Kept so far: {', '.join(p.display for p in memory) or '(nothing)'}\n"
        f"Suggested by similar answered questions: {_suggested(prior, shown)}\n"
        f"Actions already taken:\n{_history(history)}"
    )


def reflection_prompt(question: str, *, output: Sequence[ObservedPath], k: int, ends: int) -> str:
    return (f"Question: {question}\nPaths found:\n{numbered(output, ends) or '(none)'}\n"
            f"Keep at most {k}.")
