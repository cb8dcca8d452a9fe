"""Relation paths: what the KGQA agent observes, scores, remembers and answers with.

A question such as "who directed the films starred by X" is answered by a *relation path* from its topic entity
— ``starred_actors^-1 → directed_by`` — and the answer is the set of entities at the path's end. Working with
paths instead of triples keeps the work proportional to the number of distinct relation sequences, not to the
number of triples: a genre hub's 4,000 ``has_genre`` triples are one step with a count.

A step is written the way MetaQA writes relation paths: the relationship type for a step along the stored
direction, ``<type>^-1`` for a step against it. A path is a tuple of steps. :class:`ObservedPath` is a path
as observed from one topic entity: its end set (ranked by support, the number of walks that reach each end,
trimmed), its size, and its score; it travels through the LangGraph state as a plain dict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

INVERSE = "^-1"

Step = str
PathKey = tuple[Step, ...]


def step(relation: str, forward: bool) -> Step:
    return relation if forward else f"{relation}{INVERSE}"


def split_step(value: Step) -> tuple[str, bool]:
    """(relationship type, forward?) of a step."""
    return (value[: -len(INVERSE)], False) if value.endswith(INVERSE) else (value, True)


def readable(relation: str) -> str:
    """A relation name as words: ``directed_by`` → ``directed by`` (Wikidata labels pass unchanged)."""
    return " ".join(relation.replace("_", " ").split())


def path_text(path: PathKey, names: Mapping[str, str]) -> str:
    """The path as the scorer reads it, from the answer back to the topic: ``directed by of the starred actors
    of`` for ``starred_actors^-1 → directed_by`` (a step against the stored direction reads "<relation> of").

    Why this form: a question names its answer first and its topic last ("who directed the films starred by
    X"); read backwards, the path's words come in the same order."""
    words = []
    for s in reversed(path):
        relation, forward = split_step(s)
        name = readable(names.get(relation, relation))
        words.append(name if forward else f"{name} of")
    return " of the ".join(words)


def path_phrase(path: PathKey, names: Mapping[str, str], topic: str = "X") -> str:
    """The path as a phrase about its topic, for the LLM: ``the directed by of that whose starred actors is X`` for
    ``starred_actors^-1 → directed_by`` (a step against the stored direction reads "that whose <relation> is")."""
    phrase = topic
    for s in path:
        relation, forward = split_step(s)
        name = readable(names.get(relation, relation))
        phrase = f"the {name} of {phrase}" if forward else f"that whose {name} is {phrase}"
    return phrase


def relation_names(path: PathKey, names: Mapping[str, str]) -> list[str]:
    """The readable names of the relations a path takes, each once, in order, regardless of direction: what the
    relation check asks the model about (:meth:`~kgagents.agent.kgqa.llm_steps.LLMSteps.relations`). Once, because a
    question that asks about a relation is no more about it when a path takes it twice (summing repeats made
    MetaQA train 1-hop questions pick cycles such as "in language of the in language of")."""
    return list(dict.fromkeys(readable(names.get(split_step(s)[0], split_step(s)[0])) for s in path))


def path_display(path: PathKey, names: Mapping[str, str]) -> str:
    """The path as people and the LLM read it: ``starred actors (inverse) → directed by``."""
    if not path:
        return "(the topic itself)"
    parts = []
    for s in path:
        relation, forward = split_step(s)
        parts.append(readable(names.get(relation, relation)) + ("" if forward else " (inverse)"))
    return " → ".join(parts)


@dataclass
class ObservedPath:
    """One relation path from one topic entity, as observed.

    ``ends`` / ``end_names`` / ``supports``: the end entities best supported first, trimmed; ``size``: how many
    there are in all (of those found, when ``sampled``). ``score``: the path's score for the question (zero-shot
    similarity plus the memory prior); ``prior``: the memory's share for this path (0 without memory);
    ``type_score``: how well the end entities' names fit the question; ``complete``: ``ends`` is the whole end
    set (neither trimmed nor ``sampled``)."""

    topic: str
    path: list[Step]
    text: str
    display: str
    phrase: str
    size: int
    ends: list[str] = field(default_factory=list)
    end_names: list[str] = field(default_factory=list)
    supports: list[int] = field(default_factory=list)
    score: float = 0.0
    similarity: float = 0.0
    type_score: float = 0.0
    prior: float = 0.0
    complete: bool = True
    reentry: bool = False
    #: found from part of its prefix's end set (the observation's budget): ``ends`` / ``size`` are a part
    sampled: bool = False

    @property
    def key(self) -> PathKey:
        return tuple(self.path)

    @property
    def length(self) -> int:
        return len(self.path)

    def as_dict(self) -> dict[str, Any]:
        """A shallow copy of the fields (the state's lists are never changed in place)."""
        return dict(self.__dict__)

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> ObservedPath:
        return cls(**dict(value))

    def shown(self, ends: int) -> str:
        """One line for a prompt: the path as a phrase about the topic X (:func:`path_phrase`), then its first
        ``ends`` end names (cut to 40 characters) and its size."""
        sample = ", ".join(readable(n)[:40] for n in self.end_names[:ends])
        more = f", ... ({self.size} in all)" if self.size > ends else ""
        return f"{self.phrase} => {sample}{more}" if sample else f"{self.phrase} => (nothing)"


def paths(items: Iterable[Mapping[str, Any]]) -> list[ObservedPath]:
    """State dicts back to :class:`ObservedPath` objects."""
    return [ObservedPath.of(p) for p in items]


def numbered(items: Sequence[ObservedPath], ends: int) -> str:
    """One numbered line per path (1-based), for prompts that pick a path by number."""
    return "\n".join(f"{i}. {p.shown(ends)}" for i, p in enumerate(items, 1))
