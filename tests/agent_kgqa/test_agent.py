"""The ODA loop on relation paths end to end on the tiny movie KG: the no-LLM answer, plain-text linking, the
observation's relation-level aggregation and bounds, and the LLM control flow with a SCRIPTED chat model (test
names say so) — runs and traces read back from Neo4j with Cypher. Expectations are computed from the fixture file."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from kgagents.agent.kgqa import chains
from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.chains import stored_chain_prompt
from kgagents.agent.kgqa.observation import PathObserver, follow
from kgagents.agent.kgqa.paths import ObservedPath
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import stored_trace
from kgagents.agent.kgqa.supervision import supervise_given
from kgagents.cypher import with_types
from kgagents.embeddings import get_embedder
from kgagents.errors import ChatModelRequiredError, KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStatus, RunStore
from kgagents.jobs.kgqa import ask, run_questions
from kgagents.llm.models import MODEL_SETTINGS
from kgagents.loaders.qa import EntityRef, Question, read_questions
from tests.agent_kgqa.conftest import KG
from tests.scripted_chat import ScriptedChatModel


def _kb(fixtures: Path) -> list[tuple[str, str, str]]:
    lines = (fixtures / "kgqa" / "movies_kb.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("|")) for line in lines if line]  # type: ignore[misc]


def _follow(kb: list[tuple[str, str, str]], topic: str, path: list[str]) -> set[str]:
    """A path's end set computed from the fixture file (topics never re-enter a path)."""
    current = {topic}
    for step in path:
        relation, forward = (step[:-3], False) if step.endswith("^-1") else (step, True)
        current = {t if forward else h for h, r, t in kb if r == relation and (h if forward else t) in current}
        current.discard(topic)
    return current


def _question(text: str, topic: str | None, answers: tuple[str, ...] = ()) -> Question:
    return Question(id="q", dataset="t", question=text, topic_entities=[EntityRef(id=topic, name=topic)] if topic
                    else [], answers=[EntityRef(id=a, name=a) for a in answers])


def test_full_mode_without_a_chat_model_is_refused(movies: Graph) -> None:
    with pytest.raises(ChatModelRequiredError, match="no_llm"):
        ODAAgent(movies, None, KGQASettings(mode="full"), kg=KG)


def test_the_observation_aggregates_triples_into_relation_paths(movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    observer = PathObserver(movies, KG, KGQASettings(mode="no_llm", min_expand=100, top_percent=1.0),
                            PathScorer(get_embedder(), KGQASettings()))
    question = observer.scorer.query("which films were directed by X")
    observed = observer.observe(question, ["William Dieterle"]).paths
    by_path = {tuple(p.path): p for p in observed}
    films = {h for h, r, t in kb if r == "directed_by" and t == "William Dieterle"}
    assert by_path[("directed_by^-1",)].size == len(films) and set(by_path[("directed_by^-1",)].ends) == films
    # two hops: one path per (relation, direction), its end set the union over the films, the topic never re-entering
    genres = Counter(t for h, r, t in kb if r == "has_genre" and h in films)
    genre_path = by_path[("directed_by^-1", "has_genre")]
    assert genre_path.size == len(genres)
    assert dict(zip(genre_path.ends, genre_path.supports, strict=True)) == dict(genres)
    assert all("William Dieterle" not in p.ends for p in observed)
    assert [p.score for p in observed] == sorted((p.score for p in observed), reverse=True)
    assert max(p.length for p in observed) == 3
    # D bounds the length, N the paths kept per level
    short = PathObserver(movies, KG, KGQASettings(mode="no_llm", depth=1, top_n=1),
                         PathScorer(get_embedder(), KGQASettings())).observe(question, ["William Dieterle"]).paths
    assert len(short) == 1 and short[0].length == 1
    assert {e["id"] for e in follow(movies, KG, "William Dieterle", ["directed_by^-1", "has_genre"],
                                    ["William Dieterle"], 100)} == set(genres)


def test_a_level_sends_back_only_the_ends_the_next_levels_budget_walks(movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    topic = "William Dieterle"
    films = sorted(_follow(kb, topic, ["directed_by^-1"]))  # one walk to each: ranked by id
    assert len(films) == 2
    first_degree = sum(films[0] in (h, t) for h, _, t in kb)

    def directed(budget: int | None) -> dict[str, object]:
        rows = movies.run_text(with_types("kgqa/expand_paths", None), kg=KG,
                               frontiers=[{"key": "[]", "ids": [topic], "relations": None}], exclude=[topic],
                               cap=100, named=1, sample=1, vector=None, full=None, types=None, budget=budget)
        return next(r for r in rows if r["relation"] == "directed_by" and not r["forward"])

    # the budget walks only the first film at the next level: only it is sent back, yet the path is complete (its
    # whole end set was counted) and its size is the whole end set's
    cut = directed(first_degree)
    assert cut["ends"] == films[:1] and cut["size"] == 2 and cut["complete"] and not cut["sampled"]
    for roomy in (None, 10_000):
        assert directed(roomy)["ends"] == films and directed(roomy)["complete"]


def test_a_bounded_expansion_walks_the_best_supported_ends_and_answers_with_the_whole_end_set(
        movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    topic, question = "William Dieterle", "who starred in the films directed by X"

    def observe(budget: int | None) -> dict[tuple[str, ...], ObservedPath]:
        observer = PathObserver(movies, KG, KGQASettings(mode="no_llm", min_expand=100, top_percent=1.0,
                                                         expand_budget=budget),
                                PathScorer(get_embedder(), KGQASettings()))
        return {tuple(p.path): p for p in observer.observe(observer.scorer.query(question), [topic]).paths}

    unbounded, roomy, bounded = observe(None), observe(10_000), observe(1)
    films = _follow(kb, topic, ["directed_by^-1"])
    actors = ("directed_by^-1", "starred_actors")
    assert len(films) == 2 and len(_follow(kb, topic, list(actors))) == 3
    for whole in (unbounded, roomy):
        assert not whole[actors].sampled and whole[actors].complete
        assert set(whole[actors].ends) == _follow(kb, topic, list(actors))
    # one topic: the first level is walked whole, but only the ends the budget can walk on are read back (one);
    # the second walks only the first film (ties: by id), the budget's minimum
    directed = bounded[("directed_by^-1",)]
    assert not directed.sampled and directed.size == 2 and directed.ends == [min(films)] and not directed.complete
    assert bounded[actors].sampled and not bounded[actors].complete
    first_films_actors = _follow(kb, min(films), ["starred_actors"]) - {topic}
    assert bounded[actors].size == len(first_films_actors) and set(bounded[actors].ends) <= first_films_actors
    assert ("directed_by^-1", "in_language") in unbounded and ("directed_by^-1", "in_language") not in bounded
    # a path found from part of an end set answers with its whole end set
    result = run_questions(movies, KG, [_question("who starred in the films directed by [William Dieterle]", topic)],
                           KGQASettings(memory=False, expand_budget=1), None)
    answered = result.output.results[0]
    assert answered.path == bounded[actors].display
    assert set(answered.answer.splitlines()) == _follow(kb, topic, list(actors)) and answered.answer_size == 3
    # the budget counts KG triples (written by prepare), not the traces' links to an entity
    degree = movies.run_text("MATCH (e:Entity {kg: $kg, id: 'Marlene Dietrich'}) "
                             "RETURN e.kgqa_degree AS degree, COUNT { (e)--() } AS links", kg=KG)[0]
    assert degree["degree"] == sum("Marlene Dietrich" in (h, t) for h, _, t in kb) < degree["links"]


def test_no_llm_answers_with_the_end_set_of_the_best_path_and_stores_the_run_and_traces(
        movies: Graph, fixtures: Path) -> None:
    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    result = run_questions(movies, KG, questions, KGQASettings(memory=False), None, workers=2, dataset="movies")
    run = result.output
    assert result.mode == "no_llm" and result.metric == "hits_at_1" and result.model.startswith("none (no_llm")
    assert [r.question_id for r in run.results] == [q.id for q in questions]
    for q, r in zip(questions, run.results, strict=True):
        trace = stored_trace(movies, result.run_id, q.id)
        assert trace is not None and trace["steps"] == []
        paths = json.loads(trace["trace"]["observation"])
        if r.topic_in_kg:
            best = paths[0]
            assert r.path == best["display"] and r.decided_by == "observation" and r.llm_calls == 0
            assert set(r.answer.splitlines()) <= set(best["ends"]) | set(r.answer.splitlines()[:best["size"]])
            assert r.correct == (r.answer.splitlines()[0] in {a.name for a in q.answers})
        else:  # "Nobody Known" is not in the KG: nothing observed, no answer, counted as not covered
            assert paths == [] and r.answer == "" and r.correct is False
    # the answer is the best path's whole end set, as the fixture file says
    first = run.results[0]
    steps = stored_trace(movies, result.run_id, "t1")["trace"]["path_steps"]  # type: ignore[index]
    assert set(first.answer.splitlines()) == _follow(_kb(fixtures), "Marlene Dietrich", steps)
    stored = RunStore(movies).get(result.run_id)
    assert stored is not None and stored.status is RunStatus.FINISHED and stored.metric == "hits_at_1"
    assert stored.score == pytest.approx(result.scores["hits_at_1"]) and stored.get("memory_examples") == 0
    assert stored.started_at is not None and stored.finished_at is not None
    answered = movies.run_text("MATCH (t:QATrace {run_id: $run})-[:TOUCHED {role: 'answer'}]->(e:Entity) "
                               "WHERE t.question_id = 't1' RETURN collect(e.id) AS ids", run=result.run_id)[0]["ids"]
    assert set(answered) == set(first.answer.splitlines())


def test_a_plain_text_question_is_linked_and_answered(movies: Graph, fixtures: Path) -> None:
    asked = ask(movies, KG, "who directed Sunset Boulevard", settings=KGQASettings(mode="no_llm", memory=False))
    assert asked.linked[0]["id"] == "Sunset Boulevard" and asked.linked[0]["text"] == "Sunset Boulevard"
    best = asked.paths[0]
    assert asked.result.path == best["display"] and best["topic"] == "Sunset Boulevard"
    assert set(asked.result.answer.splitlines()) == _follow(_kb(fixtures), "Sunset Boulevard", best["path"])
    bracketed = ask(movies, KG, "who directed [Kismet]", settings=KGQASettings(mode="no_llm", memory=False))
    assert bracketed.linked == [] and {p["topic"] for p in bracketed.paths} == {"Kismet"}


def test_scripted_llm_extends_a_path_keeps_it_and_answers_with_it(movies: Graph) -> None:
    prompts: list[str] = []

    def extend_the_films(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        listed = messages[-1]["content"].split("Paths (best first):\n")[1].splitlines()
        number = next(i for i, line in enumerate(listed, 1) if line.split(". ", 1)[1].startswith(
            "that whose directed by is X =>"))
        return json.dumps({"action": "get_path", "path": number})

    def keep_release_year(messages: list[dict[str, str]]) -> str:
        listed = messages[-1]["content"].split("Paths found:\n")[1].splitlines()
        return json.dumps({"keep": [i for i, line in enumerate(listed, 1)
                                    if "the release year of that whose directed by is X =>" in line]})

    def answer_with_the_kept_path(messages: list[dict[str, str]]) -> str:
        assert "Kept so far: directed by (inverse) → release year" in messages[-1]["content"]
        return json.dumps({"action": "answer", "path": 1})  # kept paths are listed first

    chat = ScriptedChatModel([extend_the_films, keep_release_year, answer_with_the_kept_path])
    q = _question("when were the movies directed by [William Dieterle] released", "William Dieterle",
                  ("1944", "1939"))
    result = run_questions(movies, KG, [q], KGQASettings(mode="full", memory=False, confident=100.0), chat)
    r = result.output.results[0]
    assert (r.iterations, r.llm_calls, r.decided_by, r.correct, r.f1) == (1, 3, "llm", True, 1.0)
    assert r.path == "directed by (inverse) → release year" and set(r.answer.splitlines()) == {"1944", "1939"}
    assert [c["purpose"] for c in chat.calls] == ["kgqa:action", "kgqa:reflect", "kgqa:action"]
    assert all(c["json_schema"] is not None and c["messages"][0]["role"] == "system" for c in chat.calls)
    trace = stored_trace(movies, result.run_id, "q")
    assert trace is not None and trace["steps"][0]["kept"] == ["directed by (inverse) → release year"]
    assert trace["steps"][0]["call"].startswith("get_path(")
    calls = movies.run_text("MATCH (:Run {id: $id})-[:MADE_CALL]->(c:LLMCall) RETURN c.purpose AS p ORDER BY c.seq",
                            id=result.run_id)
    assert [c["p"] for c in calls] == ["kgqa:action", "kgqa:reflect", "kgqa:action"]
    assert result.llm.calls == 3


def test_scripted_unusable_action_is_repaired_once_then_falls_back_to_the_best_path(movies: Graph) -> None:
    chat = ScriptedChatModel(["I think we should look around", "still no JSON"])
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    result = run_questions(movies, KG, [q], KGQASettings(mode="full", memory=False, confident=100.0), chat)
    r = result.output.results[0]
    assert [c["purpose"] for c in chat.calls] == ["kgqa:action", "kgqa:action:repair"]
    assert r.decided_by == "llm_fallback" and r.llm_calls == 2
    trace = stored_trace(movies, result.run_id, "q")
    assert trace is not None and r.path == json.loads(trace["trace"]["observation"])[0]["display"]


def test_a_confident_path_is_answered_without_the_model(movies: Graph) -> None:
    chat = ScriptedChatModel([])  # any call would exhaust the script
    q = _question("who directed [Sunset Boulevard]", "Sunset Boulevard", ("Billy Wilder",))
    result = run_questions(movies, KG, [q], KGQASettings(mode="full", memory=False, confident=0.0), chat)
    assert result.output.results[0].decided_by == "observation" and result.llm.calls == 0


@pytest.mark.parametrize("mode", ["reflect_similarity", "reflect_random"])
def test_scripted_reflection_ablations_keep_paths_without_the_model(movies: Graph, mode: str) -> None:
    replies = ['{"action": "get_path", "path": 1}', '{"action": "answer", "path": 1}']
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    settings = KGQASettings(mode=mode, memory=False, confident=100.0, reflect_k=2)
    first = run_questions(movies, KG, [q], settings, ScriptedChatModel(replies))
    again = run_questions(movies, KG, [q], settings, ScriptedChatModel(replies))
    steps = [stored_trace(movies, r.run_id, "q")["steps"][0] for r in (first, again)]  # type: ignore[index]
    assert len(steps[0]["kept"]) == min(2, steps[0]["output"]) > 0
    assert steps[0]["kept"] == steps[1]["kept"]  # seeded: the same sample twice


def test_the_question_graph_embeds_one_question_at_a_time(movies: Graph, fixtures: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    agent = ODAAgent(movies, None, KGQASettings(mode="no_llm", memory=False), kg=KG)
    plain = agent.question_graph().invoke({"question": "who directed Kismet"})  # compiled: invoke it as it is
    app = agent.question_graph(InMemorySaver())
    out = app.invoke({"question": "who directed Kismet"}, {"configurable": {"thread_id": "t"}})
    assert plain["answer_path"] == out["answer_path"] and plain["answer"] == out["answer"]
    assert out["topics"] == ["Kismet"] and out["answer_path"] == out["observation"][0]
    assert len(out["question_vector"]) == 384 and out["masked"] == "who directed X"
    assert np.isfinite(out["confidence"])
    assert set(out["answer_entities"]) == _follow(_kb(fixtures), "Kismet", out["answer_path"]["path"])


def test_a_labelled_relation_path_is_learned_with_its_directions_resolved(movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    types = {r: r for _, r, _ in kb}
    # bare relation names: the KG says which direction each step takes
    gold = _follow(kb, "Marlene Dietrich", ["starred_actors^-1", "starred_actors"])
    assert gold
    found = supervise_given(movies, KG, "Marlene Dietrich", gold, ["starred_actors", "starred_actors"], types=types,
                            max_frontier=100, min_f1=0.5)
    assert found is not None and found.paths == [(("starred_actors^-1", "starred_actors"), False)]
    assert found.f1 == 1.0
    # a relation the KG lacks, or a path that misses the answers, leaves the question to weak supervision
    assert supervise_given(movies, KG, "Marlene Dietrich", gold, ["acted_with"], types=types, max_frontier=100,
                           min_f1=0.5) is None
    assert supervise_given(movies, KG, "Marlene Dietrich", gold, ["starred_actors^-1", "release_year"], types=types,
                           max_frontier=100, min_f1=0.5) is None


def test_a_remembered_walk_is_focused_and_the_most_voted_path_may_walk_back_through_its_topic(
        movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    writers = {t for h, r, t in kb if r == "written_by" and h == "Witness for the Prosecution"}
    assert writers and all({h for h, r, t in kb if r == "written_by" and t == w} ==
                           {"Witness for the Prosecution"} for w in writers)  # its writer wrote nothing else
    observer = PathObserver(movies, KG, KGQASettings(mode="no_llm"), PathScorer(get_embedder(), KGQASettings()))
    question = observer.scorer.query("which films did the writer of X write")
    back = ("written_by", "written_by^-1")
    observed = observer.observe(question, ["Witness for the Prosecution"], {back: 0.7, ("directed_by",): 0.3}).paths
    by_path = {tuple(p.path): p for p in observed}
    # only the remembered relations are walked from the topic
    assert {p.path[0] for p in observed} <= {"written_by", "directed_by"}
    # the most voted path leads nowhere unless the topic walks back into it: followed so, the topic is its end
    assert by_path[back].reentry and by_path[back].ends == ["Witness for the Prosecution"]
    # a path voted for less is not walked back
    less = observer.observe(question, ["Witness for the Prosecution"], {back: 0.3, ("directed_by",): 0.7}).paths
    assert back not in {tuple(p.path) for p in less}
    # without a memory the observation explores every relation
    free = observer.observe(question, ["Witness for the Prosecution"]).paths
    assert {p.path[0] for p in free} > {"written_by", "directed_by"}


def _judge(chain_end: str) -> Callable[[list[dict[str, str]]], str]:
    """A scripted verifier: "yes" for the path whose chain ends with ``chain_end``, "no" for every other."""
    def reply(messages: list[dict[str, str]]) -> str:
        chain = messages[-1]["content"].split("Relation chain: ")[1].splitlines()[0]
        return "yes" if chain.endswith(chain_end) else "no"
    return reply


def _letter_judge(chain_end: str) -> Callable[[list[dict[str, str]]], str]:
    """A scripted ranker: the letter of the option whose relation chain ends with ``chain_end``."""
    def reply(messages: list[dict[str, str]]) -> str:
        options = [line for line in messages[-1]["content"].splitlines() if line[:2].rstrip(".").isupper()]
        return next(line[0] for line in options if line.endswith(f"→ {chain_end})"))
    return reply


def _neutral(ranking: str) -> ScriptedChatModel:
    """A model whose graded answer is the same for every path: a 0.55 / 0.45 lean to "yes" everywhere, or the same
    probability for every letter."""
    if ranking == "yes_no":
        return ScriptedChatModel(["yes"] * 5, logprobs=lambda _: {"Yes": math.log(0.55), "No": math.log(0.45)})
    return ScriptedChatModel(["A"] * 2, logprobs=lambda _: {letter: math.log(0.2) for letter in "ABCDE"})


@pytest.mark.parametrize(("ranking", "judge_of", "calls", "text_grades"), [
    ("yes_no", _judge, (2, 5), ("+1.00", "-1.00")),     # text replies: ±1 per path, one call per path
    ("options", _letter_judge, (2, 2), ("+0.00", "-9.21")),  # the named letter log(1 + floor), others log(floor)
])
def test_gated_mode_re_ranks_the_best_paths_by_score_plus_the_models_grade(
        movies: Graph, ranking: str, judge_of: Callable[[str], Callable[[list[dict[str, str]]], str]],
        calls: tuple[int, int], text_grades: tuple[str, str]) -> None:
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    settings = KGQASettings(mode="gated", memory=False, confident=100.0, ranking=ranking)  # all below the gate
    best = run_questions(movies, KG, [q], settings.model_copy(update={"mode": "no_llm"})).output.results[0]
    other = "has genre → has genre (inverse) → in language"  # a path with another end set than the best one
    assert best.path == "has genre"

    def judge() -> ScriptedChatModel:
        return ScriptedChatModel([judge_of(other)] * calls[1])

    ignored = run_questions(movies, KG, [q], settings.model_copy(update={"verify_weight": 0.0}), judge())
    r = ignored.output.results[0]
    assert (r.path, r.decided_by) == (best.path, "observation") and calls[0] <= r.llm_calls <= calls[1]  # outweighed
    replaced = run_questions(movies, KG, [q], settings.model_copy(update={"verify_weight": 10.0}), judge())
    r = replaced.output.results[0]
    assert r.decided_by == "llm" and r.path == other and r.answer == "English" and not r.correct
    assert replaced.output.summary()["model_changed"] == {"right": 0, "wrong": 1, "same": 0}  # it broke a right one
    trace = stored_trace(movies, replaced.run_id, "q")
    assert trace is not None and trace["trace"]["gate"].endswith("replaces it")
    assert all(grade in trace["trace"]["gate"] for grade in text_grades)
    # with log-probabilities: a model that grades every path the same changes nothing
    neutral = settings.model_copy(update={"verify_weight": 10.0})
    r = run_questions(movies, KG, [q], neutral, _neutral(ranking)).output.results[0]
    assert (r.path, r.decided_by) == (best.path, "observation")


@pytest.mark.parametrize(("extra", "answers", "message"), [
    ({"split": "test"}, ("Drama",), "marked as a test split"),   # a test question never teaches the gate
    ({}, (), "needs questions with gold answers"),               # nothing to score the model against
])
def test_learn_gate_refuses_test_or_unlabelled_questions_before_anything_runs(
        movies: Graph, extra: dict[str, str], answers: tuple[str, ...], message: str) -> None:
    from kgagents.jobs.kgqa_gate import learn_gate

    q = _question("what genre is [Kismet]", "Kismet", answers).model_copy(update={"extra": extra})
    runs = movies.run_text("MATCH (r:Run) RETURN count(r) AS n")[0]["n"]
    chat = ScriptedChatModel([])
    with pytest.raises(KgAgentsError, match=message):
        learn_gate(movies, KG, [q], chat)
    assert chat.calls == [] and movies.run_text("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == runs
    assert movies.run_text("MATCH (g:LLMGate {kg: $kg}) RETURN count(g) AS n", kg=KG)[0]["n"] == 0


def test_a_learned_gate_asks_the_scripted_model_only_where_it_paid_on_training_questions(movies: Graph) -> None:
    from kgagents.jobs.kgqa_gate import learn_gate

    right = _question("what genre is [Kismet]", "Kismet", ("Drama",))  # the best path ("has genre") is right
    wrong = _question("what genre is [Kismet]", "Kismet", ("English",))  # ... and here it is wrong
    other = "has genre → has genre (inverse) → in language"
    settings = KGQASettings(mode="gated", memory=False, verify_weight=10.0)  # no explicit gate: a learned one

    def replaces() -> ScriptedChatModel:
        return ScriptedChatModel([_judge(other)] * 5)

    try:
        broke = learn_gate(movies, KG, [right], replaces(), settings=settings, weak=1.0)
        assert (broke["changed_wrong"], broke["confident"]) == (1, 0.0)  # it broke a right answer: never ask
        r = run_questions(movies, KG, [right], settings, ScriptedChatModel([])).output.results[0]
        assert (r.llm_calls, r.decided_by) == (0, "observation")
        once = learn_gate(movies, KG, [wrong], replaces(), settings=settings)
        assert once["changed_right"] == 1 and once["confident"] == 0.0  # one fix, as likely as a coin: not trusted
        five = [wrong.model_copy(update={"id": f"w{i}"}) for i in range(5)]
        fixed = learn_gate(movies, KG, five, ScriptedChatModel([_judge(other)] * 25), settings=settings)
        assert fixed["changed_right"] == 5 and fixed["confident"] > 0  # five fixes, none broken: ask there
        run = run_questions(movies, KG, [wrong], settings, replaces())
        r = run.output.results[0]
        assert r.decided_by == "llm" and r.correct and r.best_path_correct is False
        assert run.output.summary()["model_changed"] == {"right": 1, "wrong": 0, "same": 0}
        assert RunStore(movies).get(run.run_id).get("llm_gate") == "learned"  # type: ignore[union-attr]
        explicit = settings.model_copy(update={"confident": 0.0})  # an explicit gate wins over the stored one
        assert run_questions(movies, KG, [wrong], explicit, ScriptedChatModel([])).output.results[0].llm_calls == 0
        # a gate learned under another weight, rule or checks is not used: the default gate (closed) is
        reweighed = settings.model_copy(update={"verify_weight": 0.3})  # learned under another weight: not used
        assert RunStore(movies).get(run_questions(movies, KG, [wrong], reweighed, replaces()).run_id
                                    ).get("llm_gate") == "default"  # type: ignore[union-attr]
        other_rule = settings.model_copy(update={"ranking": "options"})  # learned under another rule: not used
        assert RunStore(movies).get(run_questions(movies, KG, [wrong], other_rule, ScriptedChatModel(["A"] * 2)).run_id
                                    ).get("llm_gate") == "default"  # type: ignore[union-attr]
        checked = settings.model_copy(update={"relation_weight": 0.5})  # learned without the relation check
        assert RunStore(movies).get(run_questions(movies, KG, [wrong], checked, ScriptedChatModel(["yes"] * 50)).run_id
                                    ).get("llm_gate") == "default"  # type: ignore[union-attr]
    finally:
        movies.run_text("MATCH (g:LLMGate {kg: $kg}) DETACH DELETE g", kg=KG)


@pytest.mark.parametrize(("p_yes", "one_relation"), [(0.99, True), (0.01, False)])
def test_the_models_direct_check_moves_one_relation_paths(movies: Graph, p_yes: float, one_relation: bool) -> None:
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    # gate wide open (confident 0): the only call is the direct check, asked once, before the observation
    settings = KGQASettings(mode="gated", memory=False, confident=0.0, direct_weight=1.0, direct_center=0.0)
    def lean(_: list[dict[str, str]]) -> dict[str, float]:
        return {"Yes": math.log(p_yes), "No": math.log(1 - p_yes)}

    chat = ScriptedChatModel(["yes"], logprobs=lean)
    run = run_questions(movies, KG, [q], settings, chat)
    r = run.output.results[0]
    assert [c["purpose"] for c in chat.calls] == ["kgqa:direct"] and r.llm_calls == 1
    assert "X" in chat.calls[0]["messages"][1]["content"] and "Kismet" not in chat.calls[0]["messages"][1]["content"]
    assert (r.path == "has genre") is one_relation  # a confident "no" (log-odds −4.6) sends it past one relation
    trace = stored_trace(movies, run.run_id, "q")
    assert trace is not None and trace["trace"]["direct"] == pytest.approx(math.log(p_yes) - math.log(1 - p_yes),
                                                                          abs=1e-3)  # in Cypher: t.direct
    off = run_questions(movies, KG, [q], settings.model_copy(update={"direct_weight": 0.0}), ScriptedChatModel([]))
    assert off.output.results[0].path == "has genre" and off.output.results[0].llm_calls == 0  # weight 0: no call


def test_the_models_relation_check_re_ranks_the_best_paths(movies: Graph) -> None:
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    # gate wide open (confident 0): the only calls are the relation check's, one per relation name of the best paths
    settings = KGQASettings(mode="gated", memory=False, confident=0.0, relation_weight=1.0, relation_center=0.0)

    def only(relation: str) -> Callable[[list[dict[str, str]]], dict[str, float]]:
        def lean(messages: list[dict[str, str]]) -> dict[str, float]:
            asked = f'"{relation}"' in messages[-1]["content"]
            return {"Yes": math.log(0.99 if asked else 0.01), "No": math.log(0.01 if asked else 0.99)}
        return lean

    for relation, answer in (("has genre", "Drama"), ("directed by", "William Dieterle")):
        chat = ScriptedChatModel(["yes"] * 50, logprobs=only(relation))
        run = run_questions(movies, KG, [q], settings, chat)
        r = run.output.results[0]
        assert {c["purpose"] for c in chat.calls} == {"kgqa:relations"} and r.llm_calls == len(chat.calls)
        asked = [c["messages"][1]["content"] for c in chat.calls]
        assert len(asked) == len(set(asked)) and all("X" in a and "Kismet" not in a for a in asked)  # once each
        assert (r.path, r.answer.splitlines()[0]) == (relation, answer)  # the model's relation answers
        trace = stored_trace(movies, run.run_id, "q")
        assert trace is not None and json.loads(trace["trace"]["relation_odds"])[relation] == pytest.approx(
            math.log(0.99) - math.log(0.01), abs=1e-3)  # in Cypher: t.relation_odds
    off = run_questions(movies, KG, [q], settings.model_copy(update={"relation_weight": 0.0}), ScriptedChatModel([]))
    assert off.output.results[0].path == "has genre" and off.output.results[0].llm_calls == 0  # weight 0: no call


def test_the_models_chain_check_lifts_the_chain_it_writes(movies: Graph, fixtures: Path) -> None:
    kb = _kb(fixtures)
    q = _question("who starred together with Marlene Dietrich", "Marlene Dietrich")
    settings = KGQASettings(mode="gated", memory=False, confident=0.0, chain_weight=1.0)
    costars = ["starred actors", "starred actors"]  # relations only: the KG says which way each goes
    chat = ScriptedChatModel([json.dumps({"chain": costars})])
    run = run_questions(movies, KG, [q], settings, chat)
    r = run.output.results[0]
    assert [c["purpose"] for c in chat.calls] == ["kgqa:chain"] and r.llm_calls == 1
    call = chat.calls[0]["messages"]
    # the model sees the topic in brackets, the KG's relations with a stored fact each, and examples the KG wrote
    assert call[-1]["content"] == "who starred together with [Marlene Dietrich]"
    assert "- starred actors: (" in call[0]["content"]
    assert any(m["role"] == "assistant" and '"chain"' in m["content"] for m in call[1:-1])
    assert r.path == "starred actors (inverse) → starred actors"
    assert set(r.answer.splitlines()) == _follow(kb, "Marlene Dietrich", ["starred_actors^-1", "starred_actors"])
    trace = stored_trace(movies, run.run_id, "q")
    assert trace is not None and trace["trace"]["chain"] == ["starred_actors", "starred_actors"]  # as written
    # a chain the observation did not reach (one path kept per level) is walked on its own
    # ("together" asks for a shared value: that cue alone lifts the path there and back, so it is off here)
    narrow = settings.model_copy(update={"top_n": 1, "min_expand": 1, "share_weight": 0.0})
    assert run_questions(movies, KG, [q], narrow.model_copy(update={"chain_weight": 0.0}),
                         ScriptedChatModel([])).output.results[0].path != r.path
    walked = run_questions(movies, KG, [q], narrow, ScriptedChatModel([json.dumps({"chain": costars})]))
    assert walked.output.results[0].path == r.path
    # an unusable reply (a step the KG lacks) leaves the observation's ranking; weight 0 asks nothing
    unshared = settings.model_copy(update={"share_weight": 0.0})
    odd = run_questions(movies, KG, [q], unshared, ScriptedChatModel([json.dumps({"chain": ["acted with"]})]))
    off = run_questions(movies, KG, [q], unshared.model_copy(update={"chain_weight": 0.0}), ScriptedChatModel([]))
    assert odd.output.results[0].path == off.output.results[0].path != r.path


def test_the_chain_prompt_is_made_once_per_kg_and_kept_in_the_graph(movies: Graph,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    names = ODAAgent(movies, None, KGQASettings(mode="no_llm"), kg=KG).observer.names.get()
    first = stored_chain_prompt(movies, KG, names, depth=3, one_hop=24, longer=12, seed=7)
    stored = movies.run_text("MATCH (c:ChainPrompt {kg: $kg}) RETURN c.key AS key", kg=KG)
    assert len(stored) == 1

    def resample(*args: object, **kwargs: object) -> None:
        raise AssertionError("the stored prompt should be read, not made again")

    monkeypatch.setattr(chains, "chain_prompt", resample)
    assert stored_chain_prompt(movies, KG, names, depth=3, one_hop=24, longer=12, seed=7) == first
    monkeypatch.undo()  # other settings: another prompt, kept beside the first
    other = stored_chain_prompt(movies, KG, names, depth=3, one_hop=2, longer=0, seed=7)
    assert len(other.shots) < len(first.shots)
    assert len(movies.run_text("MATCH (c:ChainPrompt {kg: $kg}) RETURN c.key AS key", kg=KG)) == 2


def test_where_the_memory_votes_the_relation_check_can_leave_its_ranking_alone(movies: Graph) -> None:
    # the model favours "directed by"; the memory voted for "has genre" (a state as start() leaves it)
    def lean(messages: list[dict[str, str]]) -> dict[str, float]:
        asked = '"directed by"' in messages[-1]["content"]
        return {"Yes": math.log(0.99 if asked else 0.01), "No": math.log(0.01 if asked else 0.99)}

    settings = KGQASettings(mode="gated", confident=0.0, relation_weight=1.0, relation_center=0.0)
    embedder = get_embedder()
    text = "what genre is X"
    vector = embedder.embed([text])[0]

    def observed(relation_with_memory: bool, prior: list[dict[str, object]]) -> tuple[str, int]:
        chat = ScriptedChatModel(["yes"] * 50, logprobs=lean)
        agent = ODAAgent(movies, chat, settings.model_copy(update={"relation_with_memory": relation_with_memory}),
                         kg=KG)
        query = agent.scorer.query(text, vector)
        out = agent.observe({"iteration": 0, "topics": ["Kismet"], "masked": text, "prior": prior,  # type: ignore[typeddict-item]
                             "question_vector": query.vector.tolist(), "path_vector": query.path_vector.tolist()})
        return out["observation"][0]["display"], len(chat.calls)

    voted = [{"path": ["has_genre"], "share": 0.4, "reentry": False}]  # below memory_focus: every path observed
    assert observed(False, voted) == ("has genre", 0)  # the memory's ranking stands: no call
    best, calls = observed(True, voted)
    assert calls > 0 and best.startswith("directed by")  # the check re-ranks the memory's paths too
    best, calls = observed(False, [])  # no vote: the check runs as before
    assert calls > 0 and best.startswith("directed by")


def test_a_model_with_its_own_check_values_uses_them_unless_the_settings_give_them(movies: Graph) -> None:
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    model = next(m for m, jobs in MODEL_SETTINGS.items() if "chain_weight" in jobs.get("kgqa", {}))
    settings = KGQASettings(mode="gated", memory=False, confident=0.0)  # chain check not set: the model's own
    own = {k: v for k, v in MODEL_SETTINGS[model]["kgqa"].items() if k not in settings.model_fields_set}

    def recorded(run_id: str) -> tuple[list[str], float]:  # in Cypher: r.model_defaults, r.chain_weight
        row = movies.run_text("MATCH (r:Run {id: $id}) RETURN r.model_defaults AS d, r.chain_weight AS w",
                              id=run_id)[0]
        return row["d"], row["w"]

    chat = ScriptedChatModel([json.dumps({"chain": ["has genre"]})], model=model)
    run = run_questions(movies, KG, [q], settings, chat)
    assert [c["purpose"] for c in chat.calls] == ["kgqa:chain"]
    assert recorded(run.run_id) == ([f"{k}={v}" for k, v in sorted(own.items())], own["chain_weight"])
    off = ScriptedChatModel([], model=model)
    run = run_questions(movies, KG, [q], settings.model_copy(update={"chain_weight": 0.0}), off)
    applied, weight = recorded(run.run_id)
    assert not off.calls and weight == 0.0 and not any(a.startswith("chain_weight=") for a in applied)  # given
    other = ScriptedChatModel([], model="another-model")
    run = run_questions(movies, KG, [q], settings, other)
    assert not other.calls and recorded(run.run_id) == ([], 0.0)


def test_with_a_model_and_no_learned_gate_the_gate_stays_closed(movies: Graph) -> None:
    """The full loop lost to no LLM on held-out questions; without a gate learned for the KG (and none given) a run
    with a model answers every question by its best path, the model's only use its checks (none here)."""
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    run = run_questions(movies, KG, [q], KGQASettings(mode="full", memory=False), ScriptedChatModel([]))
    r = run.output.results[0]
    assert (r.llm_calls, r.decided_by) == (0, "observation")
    assert RunStore(movies).get(run.run_id).get("llm_gate") == "default"  # type: ignore[union-attr]
    given = run_questions(movies, KG, [q], KGQASettings(mode="full", memory=False, confident=100.0),
                          ScriptedChatModel([json.dumps({"action": "answer", "path": 1})]))
    assert given.output.results[0].llm_calls >= 1  # a gate given explicitly is the user's: the loop runs
