"""The entities of one ontology as the matcher sees them, and the channel texts built from them.

Texts live on the entity nodes (``om_<channel>`` properties) so they are computed once, are
visible to users in Cypher, and a re-run (or a resumed run) skips what is already there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kgagents.agent.matching.lexical import LexicalEntity
from kgagents.agent.matching.text import is_code_like, syntactic_text
from kgagents.graph.connection import Graph

MAX_SYNONYMS_IN_TEXT = 5


@dataclass(frozen=True)
class Entity:
    """A named class or property of one ontology."""

    uri: str
    name: str
    kind: str
    label: str | None = None
    labels: Sequence[str] = field(default_factory=tuple)
    synonyms: Sequence[str] = field(default_factory=tuple)
    comment: str | None = None
    definitions: Sequence[str] = field(default_factory=tuple)

    @property
    def display(self) -> str:
        """How the entity is named in prompts and reports: its label if any, else its name."""
        return self.label or syntactic_text(self.name, None) or self.name

    def lexical(self) -> LexicalEntity:
        labels = list(self.labels) or ([self.label] if self.label else [])
        if not is_code_like(self.name):  # conference ontologies carry their words only in local names, kept as
            labels.append(self.name)     # written: the lexical keys split them, and an acronym's capitals count
        elif not labels:
            labels.append(self.syntactic_text())
        return LexicalEntity(self.uri, self.kind, tuple(dict.fromkeys(labels)), tuple(self.synonyms))

    def syntactic_text(self) -> str:
        return syntactic_text(self.name, self.label)

    def labels_text(self) -> str:
        """No-LLM lexical channel: label then synonyms (the offline stand-in for an LLM description)."""
        names = [self.display, *[s for s in self.synonyms if s != self.display][:MAX_SYNONYMS_IN_TEXT]]
        return "; ".join(dict.fromkeys(names))


def fetch_entities(graph: Graph, ontology: str, *, properties: bool = True) -> list[Entity]:
    """Every matchable entity of ``ontology`` (named classes, and properties unless excluded)."""
    rows = graph.run("matching/entities", ontology=ontology, properties=properties)
    return [
        Entity(row["uri"], row["name"] or "", row["kind"], row["label"], tuple(row["labels"]),
               tuple(row["synonyms"]), row["comment"], tuple(row["definitions"]))
        for row in rows
    ]


def store_texts(graph: Graph, texts: dict[str, dict[str, str]]) -> None:
    """Write ``{uri: {om_<channel>: text}}`` onto the entity nodes."""
    rows = [{"uri": uri, "props": props} for uri, props in texts.items()]
    with graph.transaction() as tx:
        graph.write_rows(tx, "matching/set_texts", rows)


def languages_apart(graph: Graph, source: str, target: str) -> tuple[str, str] | None:
    """The two ontologies' label languages (the tag most of each one's labels carry, stored at load) when they
    differ; None when they agree or either is untagged. An English embedding model compares names across languages
    poorly, so the matcher's ``multilingual`` setting and the CLI's note both turn on this."""
    languages = {row["name"]: row["language"] for row in graph.run("ontology/label_languages",
                                                                    names=[source, target])}
    found = languages.get(source), languages.get(target)
    if found[0] is None or found[1] is None or found[0] == found[1]:
        return None
    return found[0], found[1]
