"""ODA's memory network and the parsing of LLM replies (pure Python; no model, no database)."""

from __future__ import annotations

from kgagents.agent.kgqa.llm_steps import (
    clean_answer, fallback_action, parse_action, parse_facts, parse_selection, resolve_entity,
)
from kgagents.agent.kgqa.memory import memory_triples, next_entities, remember, render_memory
from kgagents.agent.kgqa.readings import in_reading, out_reading
from kgagents.agent.kgqa.triples import Triple


def t(rid: str, head: str, rel: str, tail: str, *, source: str | None = None) -> Triple:
    source = source or head
    return Triple(rid, head, head, rel, rel, tail, tail, source=source, target=tail if source == head else head)


def test_readings_leave_out_the_observing_entity() -> None:
    assert out_reading("directed_by", "William Dieterle") == "directed by William Dieterle"
    assert in_reading("Kismet", "directed_by") == "Kismet directed by"


def test_memory_appends_to_the_first_path_that_ends_where_the_triple_starts() -> None:
    actor_movie = t("r1", "Kismet", "starred_actors", "Marlene Dietrich", source="Marlene Dietrich")
    movie_director = t("r2", "Kismet", "directed_by", "William Dieterle")
    unrelated = t("r3", "Weekend", "release_year", "2011")
    memory = remember([], [actor_movie, unrelated])
    memory = remember(memory, [movie_director, actor_movie])  # a triple already in memory is not added twice
    assert [[x["rid"] for x in p] for p in memory] == [["r1", "r2"], ["r3"]]
    assert [x.rid for x in memory_triples(memory)] == ["r1", "r2", "r3"]
    assert next_entities([actor_movie, movie_director, actor_movie]) == ["Kismet", "William Dieterle"]
    assert render_memory(memory).splitlines()[0] == (
        "path 1: Kismet | starred actors | Marlene Dietrich ; Kismet | directed by | William Dieterle")


LABELS = {"Q42": "Douglas Adams", "Q5": "human", "Crouching Tiger, Hidden Dragon": "Crouching Tiger, Hidden Dragon",
          "Ang Lee": "Ang Lee"}


def test_action_replies_resolve_ids_and_names_and_enforce_the_rules() -> None:
    act = parse_action("I will call GetNeighbor(Q42).", entities=["Q42"], labels=LABELS, done=[])
    assert not isinstance(act, str) and act.call == "GetNeighbor(Q42)"
    by_name = parse_action("getneighbor(douglas adams)", entities=["Q42"], labels=LABELS, done=[])
    assert not isinstance(by_name, str) and by_name.args == ["Q42"]
    path = parse_action("GetPath(Crouching Tiger, Hidden Dragon, Ang Lee)", entities=["Q42", "Q5"], labels=LABELS,
                        done=[])
    assert not isinstance(path, str) and path.args == ["Crouching Tiger, Hidden Dragon", "Ang Lee"]
    assert "fewer than two" in parse_action("GetNeighbor(Q42)", entities=["Q42", "Q5"], labels=LABELS, done=[])
    assert "already done" in parse_action("GetNeighbor(Q42)", entities=["Q42"], labels=LABELS,
                                          done=["GetNeighbor(Q42)"])
    assert "not one of" in parse_action("GetNeighbor(Q1)", entities=["Q42"], labels=LABELS, done=[])
    assert isinstance(parse_action("no idea", entities=["Q42"], labels=LABELS, done=[]), str)
    assert parse_action("Answer", entities=["Q42"], labels=LABELS, done=[]).name == "Answer"  # type: ignore[union-attr]


def test_fallback_action_avoids_repeats() -> None:
    assert fallback_action(["Q42"], [], "why").call == "GetNeighbor(Q42)"
    assert fallback_action(["Q42", "Q5"], [], "why").call == "GetPath(Q42, Q5)"
    assert fallback_action(["Q42"], ["GetNeighbor(Q42)"], "why").call == "Answer"
    assert fallback_action(["Q42"], [], "why").fallback


def test_selection_parsing() -> None:
    assert parse_selection("2, 5, 2, 9", n=6, k=15) == [1, 4]
    assert parse_selection("Triples 1 and 3", n=6, k=1) == [0]
    assert parse_selection("none of them", n=6, k=15) == []
    assert parse_selection("the first one", n=6, k=15) is None
    assert parse_selection("7", n=6, k=15) is None


def test_generated_facts_resolve_known_names() -> None:
    facts = parse_facts("Douglas Adams | occupation | writer\nnot a fact\n- Q42 | instance of | human", LABELS,
                        k=5, tag="generated:1")
    assert [(f.head, f.relation, f.tail) for f in facts] == [("Q42", "occupation", "writer"), ("Q42", "instance of", "Q5")]
    assert facts[1].target == "Q5" and facts[0].rid == "generated:1:0"


def test_answer_cleanup_and_entity_resolution() -> None:
    assert clean_answer("Answer: Kismet\n\nTracker\n") == "Kismet\nTracker"
    assert resolve_entity("`douglas adams`", LABELS) == "Q42"
    assert resolve_entity("Nobody", LABELS) is None
