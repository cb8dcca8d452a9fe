"""The chain check's pure parts: what the model may write, how a written chain meets the KG's paths."""

from __future__ import annotations

import json

from kgagents.agent.kgqa.chains import (
    ChainPrompt,
    chain_gain,
    collapsed,
    common,
    directions,
    expansions,
    topics_bracketed,
    undirected,
)

PROMPT = ChainPrompt("system", (), {"directed by": "directed_by", "has genre": "has_genre"}, depth=3)


def test_a_reply_is_read_as_relationship_types_or_refused() -> None:
    assert PROMPT.parse(json.dumps({"chain": ["directed by", "has genre"]})) == ("directed_by", "has_genre")
    assert PROMPT.parse(json.dumps({"chain": ["directed by", "acted with"]})) is None  # not a relation of the KG
    assert PROMPT.parse(json.dumps({"chain": []})) is None
    assert PROMPT.parse("directed by") is None
    schema = PROMPT.schema()["properties"]["chain"]
    assert schema["maxItems"] == 3 and schema["items"]["enum"] == ["directed by", "has genre"]


def test_a_chain_stands_for_every_direction_and_every_repeat_of_its_relations() -> None:
    assert undirected(("directed_by", "directed_by^-1", "has_genre")) == ("directed_by", "directed_by", "has_genre")
    assert collapsed(("directed_by", "directed_by", "has_genre")) == ("directed_by", "has_genre")
    assert collapsed(("a", "b", "a")) == ("a", "b", "a")  # only runs collapse
    assert expansions(("a", "b"), 3) == [("a", "b"), ("a", "b", "b"), ("a", "a", "b")]
    assert expansions(("a", "a"), 2) == [("a",), ("a", "a")]
    assert set(directions(("a", "b"))) == {("a", "b"), ("a", "b^-1"), ("a^-1", "b"), ("a^-1", "b^-1")}


def test_a_path_gains_all_of_the_chain_it_takes_and_a_share_of_the_part_it_keeps_in_order() -> None:
    assert common(("a", "b", "c"), ("a", "c")) == 2 and common(("a", "b"), ("b", "a")) == 1
    assert common(("a", "b", "c"), ("d",)) == 0

    def gain(taken: tuple[str, ...], written: tuple[str, ...]) -> float:
        return chain_gain(taken, written, weight=0.2, collapsed_share=0.5, partial_share=0.5)

    assert gain(("a", "b"), ("a", "b")) == 0.2
    assert gain(("a", "a", "b"), ("a", "b")) == 0.1  # a relation taken there and back
    assert round(gain(("a", "b", "c"), ("a", "c")), 4) == round(0.2 * 0.5 * 2 / 3, 4)  # the model dropped "b"
    assert gain(("b", "a"), ("a", "b")) == 0.2 * 0.5 * 1 / 2  # order counts
    assert gain(("c",), ("a", "b")) == 0.0
    assert chain_gain(("a", "c"), ("a", "b"), weight=0.2, collapsed_share=0.5, partial_share=0.0) == 0.0


def test_the_question_shows_its_topic_in_brackets() -> None:
    assert topics_bracketed("who directed The Kid", ["The Kid"]) == "who directed [The Kid]"
    assert topics_bracketed("who directed the kid", ["the Kid"]) == "who directed [the kid]"
    assert topics_bracketed("who directed [The Kid]", ["The Kid"]) == "who directed [The Kid]"
    assert topics_bracketed("where was he born", ["Q42"]) == "where was he born [Q42]"
