"""What a reference alignment holds that a score does not show: cells the scorer leaves out, one-to-many cells,
and entities that are in neither ontology (a reference for other versions of the ontologies, or a typo).

A score against a reference whose entities are missing from the graph is silently low; a reference with many
``<``/``>`` cells or one-to-many cells cannot be met by a 1:1 equivalence matcher. Both deserve a line of their
own next to the score (``kgagents match --reference``, the benchmark files, ``kgagents report``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import Alignment
from kgagents.loaders.sssom import declared_form, escape_variants
from kgagents.metrics.oaei import IGNORED_NAMESPACES

MAX_LISTED = 5


class ReferenceCheck(BaseModel):
    """Counts over the cells of one reference alignment."""

    cells: int
    equivalence_cells: int
    not_equivalence: int  # '<', '>', '%' cells: not scored
    one_to_many: int  # distinct '=' pairs sharing an entity with another '=' pair
    unknown_entities: list[str]  # URIs named by the reference that neither ontology declares

    def summary(self) -> dict[str, Any]:
        """The counts, and the first few unknown entities, for a results file."""
        return {**self.model_dump(exclude={"unknown_entities"}), "unknown_entities": len(self.unknown_entities),
                "unknown_examples": self.unknown_entities[:MAX_LISTED]}

    def warnings(self) -> list[str]:
        """One line per finding, empty when there is nothing to say."""
        lines = []
        if self.unknown_entities:
            shown = ", ".join(self.unknown_entities[:MAX_LISTED])
            extra = len(self.unknown_entities) - MAX_LISTED
            more = f" and {extra} more" if extra > 0 else ""
            lines.append(f"{len(self.unknown_entities)} entities of the reference are in neither ontology "
                         f"({shown}{more}): the reference may be for other versions of the ontologies; "
                         "those cells can never be found")
        if self.not_equivalence:
            lines.append(f"{self.not_equivalence} of {self.cells} reference cells are not '=' (not scored)")
        if self.one_to_many:
            lines.append(f"{self.one_to_many} of {self.equivalence_cells} '=' reference pairs are one-to-many "
                         "(a 1:1 matcher finds at most one of each group)")
        return lines


def check_reference(alignment: Alignment, known: Iterable[str]) -> ReferenceCheck:
    """Count the cells of ``alignment``; ``known`` are the URIs the two ontologies declare (entities in the
    namespaces the scorer ignores are not looked up)."""
    known_set = set(known)
    pairs = {(c.entity1, c.entity2) for c in alignment.cells if c.relation == "="}
    left, right = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    named = dict.fromkeys(u for c in alignment.cells for u in (c.entity1, c.entity2)
                          if not u.startswith(IGNORED_NAMESPACES))  # cells the scorer drops anyway
    return ReferenceCheck(
        cells=len(alignment.cells),
        equivalence_cells=len(pairs),
        not_equivalence=sum(1 for c in alignment.cells if c.relation != "="),
        one_to_many=sum(1 for a, b in pairs if left[a] > 1 or right[b] > 1),
        unknown_entities=[u for u in named if u not in known_set],
    )


def _declared(graph: Graph, alignment: Alignment, ontologies: Iterable[str]) -> set[str]:
    """The ids of ``alignment``'s cells (and their unescaped CURIE forms) that the loaded ``ontologies`` declare."""
    uris = escape_variants(u for c in alignment.cells for u in (c.entity1, c.entity2))
    return {r["uri"] for r in graph.run("report/declared_uris", uris=uris, ontologies=list(ontologies))}


def as_declared(graph: Graph, alignment: Alignment, ontologies: Iterable[str]) -> Alignment:
    """``alignment`` naming its entities as the loaded ``ontologies`` declare them
    (:func:`~kgagents.loaders.sssom.declared_form`): a reference read from SSSOM scores what it names."""
    return declared_form(alignment, _declared(graph, alignment, ontologies))


def declared_and_checked(graph: Graph, alignment: Alignment,
                         ontologies: Iterable[str]) -> tuple[Alignment, ReferenceCheck]:
    """:func:`as_declared` and :func:`check_reference` against what the loaded ``ontologies`` declare, from one
    lookup of the declared ids."""
    declared = _declared(graph, alignment, list(ontologies))
    named = declared_form(alignment, declared)
    return named, check_reference(named, declared)


def check_reference_in_graph(graph: Graph, alignment: Alignment, ontologies: Iterable[str]) -> ReferenceCheck:
    """:func:`check_reference` against what the loaded ``ontologies`` declare."""
    return declared_and_checked(graph, alignment, ontologies)[1]
