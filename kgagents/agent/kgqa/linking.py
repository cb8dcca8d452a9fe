"""Entity linking: which entity of the KG a plain-text question is about.

1. **Candidates** (Cypher, full-text index ``kgqa_entity_names`` over names, aliases, and names whose words are
   joined by underscores written with spaces): one Lucene query, the OR of every word n-gram of the question as a
   phrase, returns entities whose names contain those words.
2. **Mentions**: a candidate counts only where one of its names (or aliases) *is* a span of the question, word
   for word after lower-casing (underscores read as spaces, punctuation ignored).
3. **Ranking**: longer spans first (a question naming "The Lord of the Rings" is not about "Rings"); then a span
   written exactly as the name is cased beats one that only matches in lower case; then the question's
   *context*: with a path memory, how close the question with that span masked comes to a learned question
   (masking the right span leaves a question the memory knows); otherwise how well the entity's own relations fit
   the rest of the question; the entity's degree breaks remaining ties (the better-known "Paris").

Brackets in a question (``what movies did [Temuera Morrison] act in``) are an explicit override: the bracketed
text is the topic, resolved to an entity of that name (:meth:`EntityLinker.resolve`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kgagents.graph.connection import Graph

#: a word, apostrophes inside kept ("O'Brien", "don't"); a possessive "'s" is not part of it, so "Ada Quill's
#: husband" names "Ada Quill" (the "s" is a word of its own, in a question and in a name alike)
_WORD = re.compile(r"\w+(?:['’](?!s\b)\w+)*", re.UNICODE)
#: longest question span (words) looked up as a name
MAX_SPAN = 10
#: full-text hits asked for (over every KG), and candidates kept for this KG
SEARCH, LIMIT = 400, 200
INDEX_TIMEOUT_S = 300
#: best mentions (by span) whose context is computed
CONTEXT_CANDIDATES = 6

#: context(question with the span masked, entity id) → how well the rest of the question fits the entity
Context = Callable[[str, str], float]


def words(text: str) -> list[tuple[str, int, int]]:
    """(lower-cased word, start, end) of every word of ``text``; underscores separate words."""
    return [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text.replace("_", " "))]


def _phrase(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lucene_query(question: str, max_span: int = MAX_SPAN) -> str:
    """The OR of every word n-gram (n ≤ ``max_span``) of the question as a quoted phrase, cut from the question
    as written (the index's analyzer then reads ``a_b`` in the question as it read it in a name)."""
    ws = words(question)
    phrases = {question[ws[i][1]:ws[j][2]] for i in range(len(ws)) for j in range(i, min(i + max_span, len(ws)))}
    return " OR ".join(_phrase(p) for p in sorted(phrases))


@dataclass
class Mention:
    """An entity named by a span of the question."""

    id: str
    name: str
    start: int
    end: int
    text: str
    words: int
    case_match: bool
    degree: int
    context: float = 0.0
    score: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def mask(question: str, start: int, end: int, placeholder: str = "X") -> str:
    """The question with characters ``start:end`` replaced by ``placeholder`` (whitespace normalised)."""
    return " ".join(f"{question[:start]}{placeholder}{question[end:]}".split())


def _find(sequence: Sequence[str], sub: Sequence[str]) -> list[int]:
    n = len(sub)
    return [i for i in range(len(sequence) - n + 1) if list(sequence[i:i + n]) == list(sub)] if n else []


class EntityLinker:
    """Links questions to entities of one KG (see the module docstring)."""

    def __init__(self, graph: Graph, kg: str) -> None:
        self.graph = graph
        self.kg = kg
        self._ready = False

    def ensure_index(self) -> None:
        """Write the KG's underscore-free names, create the full-text index if missing and wait until it is
        online."""
        self.graph.run("kgqa/search_names", kg=self.kg)
        self.graph.run_script("kgqa/fulltext_index")
        self.graph.run("kgqa/await_fulltext", timeout=INDEX_TIMEOUT_S)
        self._ready = True

    def mentions(self, question: str) -> list[Mention]:
        """Every candidate whose name or alias is a span of ``question`` (unranked)."""
        ws = words(question)
        if not ws:
            return []
        if not self._ready:  # once per linker: a KG loaded after `kgqa prepare` is searchable too
            self.ensure_index()
        tokens = [w for w, _, _ in ws]
        rows = self.graph.run("kgqa/link_candidates", kg=self.kg, query=lucene_query(question), search=SEARCH,
                              limit=LIMIT)
        plain = question.replace("_", " ")
        found: dict[tuple[str, int, int], Mention] = {}
        for row in rows:
            for name in dict.fromkeys([row["name"], *row["aliases"]]):
                name_words = [w for w, _, _ in words(name)]
                for i in _find(tokens, name_words):
                    start, end = ws[i][1], ws[i + len(name_words) - 1][2]
                    text = question[start:end]
                    case = plain[start:end] == " ".join(name.replace("_", " ").split())
                    key = (row["id"], start, end)
                    if key not in found or (case and not found[key].case_match):
                        found[key] = Mention(id=row["id"], name=row["name"], start=start, end=end, text=text,
                                             words=len(name_words), case_match=case, degree=row["degree"])
        return list(found.values())

    def link(self, question: str, context: Context | None = None, *, top: int = 5) -> list[Mention]:
        """The question's mentions, best first (at most ``top``); the first is its topic entity."""
        found = self.mentions(question)
        for m in found:
            m.score = m.words + 0.5 * m.case_match + 0.01 * math.log1p(m.degree)
        found.sort(key=lambda m: (-m.score, -(m.end - m.start), m.id))
        if context is not None and len(found) > 1:
            for m in found[:CONTEXT_CANDIDATES]:
                m.context = round(float(context(mask(question, m.start, m.end), m.id)), 4)
                m.score += m.context
            found.sort(key=lambda m: (-m.score, -(m.end - m.start), m.id))
        for m in found:
            m.score = round(m.score, 4)
        return found[:top]

    def resolve(self, text: str, context: Context | None = None, question: str | None = None) -> str | None:
        """The entity a bracketed name stands for: the entity whose id is ``text``, else the best entity whose
        name is exactly ``text`` (by context within ``question``, then degree); None when there is none."""
        exact = self.graph.run("kgqa/entity_names", kg=self.kg, ids=[text])
        if exact:
            return text
        whole = [m for m in self.mentions(text) if m.start == 0 and m.end == len(text)]
        if not whole:
            return None
        if context is not None and question is not None and len(whole) > 1:
            for m in whole:
                m.context = float(context(question.replace(f"[{text}]", "X"), m.id))
        return max(whole, key=lambda m: (m.context, m.degree, m.id)).id
