"""The KGQA agent's pure parts (no server): paths as text, the memory's vote, splits, masking, linking spans,
the LLM reply parsers and the answer-set scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgagents.agent.kgqa.linking import lucene_query, mask, words
from kgagents.agent.kgqa.llm_steps import Action, parse_action, parse_keep
from kgagents.agent.kgqa.pathmemory import TestSplitError, refuse_test_split, vote
from kgagents.agent.kgqa.paths import ObservedPath, path_display, path_phrase, path_text, split_step, step
from kgagents.agent.kgqa.questions import bracketed, masked, plain
from kgagents.agent.kgqa.supervision import f1
from kgagents.agent.kgqa.wording import Wording
from kgagents.errors import ParseError
from kgagents.jobs.kgqa import split
from kgagents.loaders.qa import EntityRef, Question, read_questions
from kgagents.metrics.qa import set_scores


def _q(i: int) -> Question:
    return Question(id=f"q{i:03d}", dataset="t", question=f"question {i}", topic_entities=[], answers=[])


def test_steps_round_trip_and_paths_read_from_the_answer_back() -> None:
    assert split_step(step("directed_by", False)) == ("directed_by", False)
    path = ("starred_actors^-1", "directed_by")
    names = {"starred_actors": "starred_actors", "directed_by": "directed_by"}
    assert path_text(path, names) == "directed by of the starred actors of"
    assert path_display(path, names) == "starred actors (inverse) → directed by"
    assert path_display((), names) == "(the topic itself)"
    assert path_phrase(path, names) == "the directed by of that whose starred actors is X"


def test_observed_paths_survive_the_json_state() -> None:
    p = ObservedPath(topic="t", path=["a"], text="a", display="a", phrase="the a of X", size=3, ends=["x", "y"],
                     end_names=["X_1", "Y"],
                     supports=[2, 1], score=0.5)
    assert ObservedPath.of(json.loads(json.dumps(p.as_dict()))) == p
    assert p.shown(1) == "the a of X => X 1, ... (3 in all)"


def _row(phrasing: str, path: list[str], similarity: float, *, weight: float = 1.0, questions: int = 1,
         reentry: bool = False) -> dict[str, object]:
    """One ``kgqa/memory_nearest`` row: a phrasing's summed example weight for one path."""
    return {"phrasing": phrasing, "masked": phrasing, "question": phrasing, "path": path, "weight": weight,
            "questions": questions, "similarity": similarity, "reentry": reentry}


def test_the_closest_phrasings_outvote_a_crowd_of_looser_ones() -> None:
    rows = [_row("p0", ["r1"], 0.95)] + [_row(f"p{i}", ["r2"], 0.80) for i in range(1, 6)]
    sharp = vote(rows, min_similarity=0.5, temperature=0.02)
    assert sharp.best is not None and sharp.best[0] == ("r1",)
    flat = vote(rows, min_similarity=0.5, temperature=10.0)  # a flat vote: the crowd wins
    assert flat.best is not None and flat.best[0] == ("r2",)
    assert vote(rows, min_similarity=0.99, temperature=0.05).shares == {}  # nobody close enough votes
    assert abs(sum(sharp.shares.values()) - 1.0) < 1e-9
    assert [n["question"] for n in sharp.neighbours] == ["p0", "p1", "p2", "p3", "p4"]


def test_a_phrasing_votes_once_however_many_questions_it_stands_for() -> None:
    # p0 stands for 1,000 learned questions (a template), 900 of them taught r1 and 100 r2; p1 for one question, r3
    rows = [_row("p0", ["r1"], 0.9, weight=900.0, questions=1000), _row("p0", ["r2"], 0.9, weight=100.0,
                                                                         questions=1000),
            _row("p1", ["r3"], 0.9)]
    shares = vote(rows, min_similarity=0.0, temperature=0.05).shares
    assert shares == pytest.approx({("r1",): 0.45, ("r2",): 0.05, ("r3",): 0.5})
    assert [n["question"] for n in vote(rows, min_similarity=0.0, temperature=0.05).neighbours] == ["p0", "p1"]


def test_re_entry_is_voted_per_path() -> None:
    rows = [_row("p0", ["spouse", "spouse"], 0.9, reentry=True),
            _row("p1", ["spouse", "spouse"], 0.9, weight=0.5, reentry=False)]
    assert vote(rows, min_similarity=0.0, temperature=0.05).reentry == {("spouse", "spouse")}
    rows[1]["weight"] = 1.0  # a tie is not a majority
    assert vote(rows, min_similarity=0.0, temperature=0.05).reentry == set()


def test_a_split_is_seeded_exhaustive_and_marks_each_part() -> None:
    questions = [_q(i) for i in range(101)]
    parts = split(questions, {"train": 0.8, "dev": 0.1, "test": 0.1}, seed=7)
    assert [len(p) for p in parts.values()] == [81, 10, 10]
    assert sorted(q.id for p in parts.values() for q in p) == [q.id for q in questions]
    assert all(q.extra["split"] == name for name, p in parts.items() for q in p)
    again = split(list(reversed(questions)), {"train": 0.8, "dev": 0.1, "test": 0.1}, seed=7)
    assert {n: {q.id for q in p} for n, p in again.items()} == {n: {q.id for q in p} for n, p in parts.items()}
    other = split(questions, {"train": 0.8, "dev": 0.1, "test": 0.1}, seed=8)
    assert {q.id for q in other["test"]} != {q.id for q in parts["test"]}
    with pytest.raises(ValueError, match="sum to 1"):
        split(questions, {"train": 0.8, "test": 0.1}, seed=7)


def test_records_of_a_test_split_are_refused_by_name() -> None:
    refuse_test_split([("a", "train"), ("b", None), ("c", "dev")], "f.jsonl")
    with pytest.raises(TestSplitError, match="f.jsonl: 2 record.*first: b.*nothing was written"):
        refuse_test_split([("a", "train"), ("b", "test"), ("c", "TEST")], "f.jsonl")


def test_masking_and_brackets() -> None:
    assert bracketed("what movies did [Temuera Morrison] act in") == ["Temuera Morrison"]
    assert masked("what movies did [Temuera Morrison] act in") == "what movies did X act in"
    assert plain("what movies did [Temuera Morrison] act in") == "what movies did Temuera Morrison act in"
    assert masked("which nationality is frederica_of_mecklenburg 's couple ?", ["frederica_of_mecklenburg"]) \
        == "which nationality is X 's couple ?"
    assert masked("who directed the room", ["The Room"]) == "who directed X"
    assert masked("no topic here", ["absent"]) == "no topic here"


def test_question_spans_for_the_full_text_query() -> None:
    assert [w for w, _, _ in words("Who Is Cletis Tout? frederica_of_mecklenburg 's")] == \
        ["who", "is", "cletis", "tout", "frederica", "of", "mecklenburg", "s"]
    query = lucene_query('say "hi" now', max_span=2)
    assert '"say"' in query and '"say \\"hi"' in query and '"now"' in query and " OR " in query
    assert mask("what movies did Temuera Morrison act in", 16, 32) == "what movies did X act in"


def test_action_replies_are_validated() -> None:
    labels = {"e1": "Kismet"}
    assert parse_action('{"action": "answer", "path": 2}', shown=3, labels=labels, done=[]) == Action("answer", 2)
    assert parse_action('sure: {"action": "get_neighbor", "entity": "kismet"}', shown=3, labels=labels,
                        done=[]) == Action("get_neighbor", entity="e1")
    assert "between 1 and 3" in parse_action('{"action": "answer", "path": 9}', shown=3, labels=labels, done=[])
    assert "not a JSON object" in parse_action("answer 1", shown=3, labels=labels, done=[])
    assert "already done" in parse_action('{"action": "get_path", "path": 1}', shown=3, labels=labels,
                                          done=["get_path(1)"])
    assert "entity shown" in parse_action('{"action": "get_neighbor", "entity": "nobody"}', shown=3,
                                          labels=labels, done=[])


def test_reflection_replies_are_validated() -> None:
    assert parse_keep('{"keep": [2, 2, 9, 1]}', n=3, k=5) == [1, 0]
    assert parse_keep('{"keep": [1, 2, 3]}', n=3, k=2) == [0, 1]
    assert parse_keep('{"keep": []}', n=3, k=2) == []
    assert "list of path numbers" in parse_keep('{"keep": "1"}', n=3, k=2)


def test_answer_sets_are_scored_by_precision_recall_and_f1() -> None:
    gold = [EntityRef(id="a", name="A"), EntityRef(id="b", name="B"), EntityRef(name="C", aliases=["see"])]
    assert set_scores([("a", "A"), ("b", "B"), ("x", "C")], gold) == (1.0, 1.0, 1.0)
    p, r, f = set_scores([("a", "A"), ("z", "Z")], gold)
    assert (p, round(r, 4), round(f, 4)) == (0.5, 0.3333, 0.4)
    assert set_scores([("q", "see")], gold)[0] == 1.0  # an alias counts
    assert set_scores([], gold) == (0.0, 0.0, 0.0)


def test_weak_supervision_f1_counts_ends_beyond_those_listed() -> None:
    assert f1({"a", "b"}, 2, {"a", "b"}) == 1.0
    assert f1({"a", "b"}, 4, {"a", "b"}) == pytest.approx(2 * 0.5 / 1.5)  # two more ends than listed
    assert f1({"c"}, 1, {"a"}) == 0.0


def test_metaqa_distribution_files_are_read_with_their_question_types(tmp_path: Path) -> None:
    folder = tmp_path / "2-hop" / "vanilla"
    folder.mkdir(parents=True)
    (folder / "qa_dev.txt").write_text("who directed the films starred by [Ann Smith]\tBob|Carl\n"
                                       "what genres are the films written by [Dee]\tDrama\n", encoding="utf-8")
    (folder / "qa_dev_qtype.txt").write_text("actor_to_movie_to_director\nwriter_to_movie_to_genre\n",
                                             encoding="utf-8")
    questions = read_questions(folder / "qa_dev.txt")
    assert [q.hops for q in questions] == [2, 2]
    assert [a.name for a in questions[0].answers] == ["Bob", "Carl"]
    assert questions[0].topic_entities[0].id == "Ann Smith" and questions[1].extra["qtype"] == \
        "writer_to_movie_to_genre"
    (folder / "qa_dev_qtype.txt").write_text("actor_to_movie_to_director\n", encoding="utf-8")
    with pytest.raises(ParseError, match="qa_dev_qtype.txt.*1 question types for 2 questions"):
        read_questions(folder / "qa_dev.txt")
    (tmp_path / "bad.txt").write_text("no tab here [X]\n", encoding="utf-8")
    with pytest.raises(ParseError, match="bad.txt:1: expected .question<TAB>answer"):
        read_questions(tmp_path / "bad.txt")
    (tmp_path / "nobracket.txt").write_text("who is it\tA\n", encoding="utf-8")
    with pytest.raises(ParseError, match="nobracket.txt:1: no topic entity in \\[brackets\\]"):
        read_questions(tmp_path / "nobracket.txt")


# -- the wording: which words name which step, and in which order ---------------------------------------------------
_NAMES = {"parents": ["father", "mother", "parent"], "children": ["son", "daughter", "child"],
          "spouse": ["wife", "husband"], "profession": ["job", "occupation"]}


def _family() -> list[tuple[str, tuple[str, ...], float]]:
    """Possessive questions ("the job of X's son's wife") with their paths, every relation order and synonym."""
    out = []
    relations = list(_NAMES)
    for r1 in relations:
        for r2 in relations:
            for r3 in relations:
                if len({r1, r2, r3}) < 2:
                    continue
                for i in range(2):
                    w1, w2, w3 = (_NAMES[r][i % len(_NAMES[r])] for r in (r1, r2, r3))
                    out.append((f"what is the {w3} of X 's {w1} 's {w2} ?", (r1, r2, r3), 1.0))
                    out.append((f"the {w3} of {w2} of X 's {w1} ?", (r1, r2, r3), 1.0))
    return out


def _films() -> list[tuple[str, tuple[str, ...], float]]:
    """Questions that name their first step before the topic and the second after it ("the films directed by X
    were written by who")."""
    verbs = {"directed_by": "directed", "written_by": "written", "starred_actors": "starred"}
    return [(f"the films {verbs[a]} by X were {verbs[b]} by who", (f"{a}^-1", b), 1.0)
            for a in verbs for b in verbs if a != b]


def test_the_wording_puts_the_memorys_vote_in_the_order_the_question_names_its_relations() -> None:
    wording = Wording.learn(_family())
    right, wrong = ("children", "parents", "profession"), ("parents", "children", "profession")
    question = "what is the name of the occupation of mother of X 's daughter ?"
    voters = [("the job of son of X 's father ?", ("parents", "children", "profession"), 1.0)]
    assert wording.order_of(voters) == "outward"  # X's father's son: after X first, then back to the front
    shares = wording.reweight({wrong: 0.9, right: 0.1}, question, 1.0, voters)
    assert shares[right] > 0.9 and sum(shares.values()) == pytest.approx(1.0)
    # each path length keeps its vote: the wording orders relations, it does not count them
    mixed = wording.reweight({wrong: 0.3, right: 0.3, ("profession",): 0.4}, question, 1.0, voters)
    assert mixed[("profession",)] == 0.4 and mixed[right] + mixed[wrong] == pytest.approx(0.6)


def test_a_question_reads_in_the_order_of_the_phrasings_that_voted_for_it() -> None:
    wording = Wording.learn(_family() + _films())
    films = [("the films written by X were directed by who", ("written_by^-1", "directed_by"), 1.0)]
    assert wording.order_of(films) == "forward"
    right, wrong = ("directed_by^-1", "written_by"), ("written_by^-1", "directed_by")
    shares = wording.reweight({wrong: 0.8, right: 0.2}, "the movies directed by X were written by who", 1.0, films)
    assert shares[right] > shares[wrong]
    assert wording.fit(right, ["written", "by", "directed"]) < wording.fit(wrong, ["written", "by", "directed"])
