"""The ODA loop end to end on the tiny movie KG: the offline baseline, and the LLM control flow with a SCRIPTED
chat model (test names say so) — traces read back from Neo4j with Cypher."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.store import stored_trace
from kgagents.errors import ChatModelRequiredError
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import run_questions
from kgagents.loaders.qa import EntityRef, Question, read_questions
from tests.agent_kgqa.conftest import KG
from tests.scripted_chat import ScriptedChatModel


def _question(text: str, topic: str, answers: tuple[str, ...] = ()) -> Question:
    return Question(id="q", dataset="t", question=text, topic_entities=[EntityRef(id=topic, name=topic)],
                    answers=[EntityRef(id=a, name=a) for a in answers])


def _touched(graph: Graph, run_id: str) -> dict[str, set[str]]:
    rows = graph.run_text("MATCH (t:QATrace {run_id: $run})-[x:TOUCHED]->(e:Entity) RETURN x.role AS role, e.id AS id",
                          run=run_id)
    out: dict[str, set[str]] = {}
    for r in rows:
        out.setdefault(r["role"], set()).add(r["id"])
    return out


def test_full_mode_without_a_chat_model_is_refused(movies: Graph) -> None:
    with pytest.raises(ChatModelRequiredError, match="no_llm"):
        ODAAgent(movies, None, KGQASettings(mode="full"), kg=KG)


def test_no_llm_baseline_answers_the_best_observed_tail_and_stores_the_trace(movies: Graph, fixtures: Path) -> None:
    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    run = run_questions(movies, KG, questions, KGQASettings(mode="full"), None, workers=2)
    assert run.mode == "no_llm" and run.model.startswith("none (no-llm")
    assert [r.question_id for r in run.results] == [q.id for q in questions]
    for q, r in zip(questions, run.results):
        trace = stored_trace(movies, run.run_id, q.id)
        assert trace is not None and trace["steps"] == []
        observed = json.loads(trace["trace"]["observation"])
        if r.topic_in_kg:
            assert [t["score"] for t in observed] == sorted((t["score"] for t in observed), reverse=True)
            far_ends = [t["tail"] if t["source"] == t["head"] else t["head"] for t in observed]
            assert r.top_entity == next(e for e in far_ends if e != q.topic_entities[0].id)
            assert r.iterations == 0 and r.llm_calls == 0 and len(r.observe_seconds) == 1
            assert r.correct == (r.answer in {a.name for a in q.answers})
        else:  # "Nobody Known" is not in the KG: nothing observed, no answer, counted as not covered
            assert observed == [] and r.answer == "" and r.correct is False
    summary = run.summary()
    assert summary["coverage"]["topic_in_kg"] == 3 and summary["coverage"]["gold_in_kg"] == 4
    assert summary["questions_by_hops"] == {"1": 3, "2": 1}
    assert summary["llm_calls_per_question"] == 0 and summary["cap_hit_rate"] == 0
    touched = _touched(movies, run.run_id)
    assert touched["topic"] == {"Marlene Dietrich", "Sunset Boulevard", "William Dieterle"}
    assert touched["answer"] == {r.top_entity for r in run.results if r.top_entity}
    stored = movies.run_text("MATCH (r:Run {id: $id}) RETURN r.job AS job, r.mode AS mode, r.summary_questions AS n",
                             id=run.run_id)
    assert stored == [{"job": "kgqa", "mode": "no_llm", "n": 4}]


def test_scripted_llm_loop_neighbor_path_answer(movies: Graph) -> None:
    prompts: list[str] = []

    def path_between_entities(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        prompts.append(prompt)
        ids = re.findall(r"^- (.+)$", prompt.split("Entity ids you can use:\n")[1].split("\nMemory")[0], re.M)
        return f"GetPath({ids[0]}, {ids[1]})"

    chat = ScriptedChatModel(["GetNeighbor(Marlene Dietrich)", "1, 2", path_between_entities, "none", "Answer",
                              "Answer: Shanghai Express\nKismet"])
    q = _question("what movies did [Marlene Dietrich] act in", "Marlene Dietrich",
                  ("Kismet", "Shanghai Express", "Witness for the Prosecution"))
    run = run_questions(movies, KG, [q], KGQASettings(mode="full"), chat)
    r = run.results[0]
    assert (r.iterations, r.cap_hit, r.llm_calls, r.correct) == (2, False, 6, True)
    assert r.answer == "Shanghai Express\nKismet" and r.top_entity == "Shanghai Express"
    assert r.prompt_tokens > 0 and r.completion_tokens > 0
    assert "GetNeighbor(<entity id>)" not in prompts[0]  # two entity ids: GetNeighbor is not offered
    assert "Actions already taken (avoid repeating them):\n- GetNeighbor(Marlene Dietrich)" in prompts[0]
    trace = stored_trace(movies, run.run_id, "q")
    assert trace is not None
    steps = trace["steps"]
    kept = json.loads(steps[0]["kept"])
    assert len(kept) == 2 and all(k["tail"] == "Marlene Dietrich" for k in kept)  # (movie, starred_actors, her)
    # the kept triples' far ends (the two movies) are the next entity ids, and the scripted reply used them
    assert [s["call"] for s in steps] == ["GetNeighbor(Marlene Dietrich)", f"GetPath({kept[0]['head']}, {kept[1]['head']})"]
    assert json.loads(steps[1]["kept"]) == []
    memory = json.loads(trace["trace"]["memory"])
    assert [len(p) for p in memory] == [1, 1]  # two triples from the same entity: two paths
    touched = _touched(movies, run.run_id)
    assert touched["explored"] >= {"Marlene Dietrich"} and touched["answer"] == {"Shanghai Express", "Kismet"}
    assert touched["memory"] == {"Marlene Dietrich"} | {k["head"] for k in kept}
    calls = movies.run_text("MATCH (:Run {id: $id})-[:MADE_CALL]->(c:LLMCall) RETURN c.purpose AS p ORDER BY c.seq",
                            id=run.run_id)
    assert [c["p"] for c in calls] == ["kgqa:action", "kgqa:reflect", "kgqa:action", "kgqa:reflect", "kgqa:action",
                                       "kgqa:answer"]


def test_scripted_llm_loop_stops_at_the_iteration_cap_and_answers_from_memory(movies: Graph) -> None:
    def neighbor_of_first(messages: list[dict[str, str]]) -> str:
        first = messages[-1]["content"].split("Entity ids you can use:\n- ")[1].splitlines()[0]
        return f"GetNeighbor({first})" if "GetNeighbor(<entity id>)" in messages[-1]["content"] else "Answer"

    chat = ScriptedChatModel([neighbor_of_first, "1", neighbor_of_first, "1", "1944"])
    q = _question("when was [Kismet] released", "Kismet", ("1944",))
    run = run_questions(movies, KG, [q], KGQASettings(mode="full", max_iterations=2), chat)
    r = run.results[0]
    assert (r.iterations, r.cap_hit, r.llm_calls, r.answer, r.correct) == (2, True, 5, "1944", True)
    assert run.summary()["cap_hit_rate"] == 1.0


def test_scripted_unusable_action_is_repaired_once_then_falls_back(movies: Graph) -> None:
    chat = ScriptedChatModel(["I think we should look around", "still no action", "2", "Answer", "Drama"])
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    run = run_questions(movies, KG, [q], KGQASettings(mode="full"), chat)
    trace = stored_trace(movies, run.run_id, "q")
    assert trace is not None
    step = trace["steps"][0]
    assert step["call"] == "GetNeighbor(Kismet)" and step["fallback"] and "names none of" in step["note"]
    assert chat.calls[1]["purpose"] == "kgqa:action:repair"
    assert run.results[0].llm_calls == 5


@pytest.mark.parametrize("mode", ["reflect_similarity", "reflect_random"])
def test_scripted_reflection_ablations_select_without_the_llm(movies: Graph, mode: str) -> None:
    chat = ScriptedChatModel(["GetNeighbor(Kismet)", "Answer", "Drama"])
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    settings = KGQASettings(mode=mode, reflect_k=2)
    first = run_questions(movies, KG, [q], settings, chat)
    kept = json.loads(stored_trace(movies, first.run_id, "q")["steps"][0]["kept"])  # type: ignore[index]
    assert len(kept) == 2 and [c["purpose"] for c in chat.calls] == ["kgqa:action", "kgqa:action", "kgqa:answer"]
    again = run_questions(movies, KG, [q], settings, ScriptedChatModel(["GetNeighbor(Kismet)", "Answer", "Drama"]))
    assert json.loads(stored_trace(movies, again.run_id, "q")["steps"][0]["kept"]) == kept  # type: ignore[index]
    if mode == "reflect_similarity":
        assert kept[0]["score"] >= kept[1]["score"]


def test_scripted_generated_reflection_keeps_the_written_facts(movies: Graph) -> None:
    chat = ScriptedChatModel(["GetNeighbor(Kismet)", "Kismet | has genre | Drama\nnonsense line", "Answer", "Drama"])
    q = _question("what genre is [Kismet]", "Kismet", ("Drama",))
    run = run_questions(movies, KG, [q], KGQASettings(mode="reflect_generated"), chat)
    trace = stored_trace(movies, run.run_id, "q")
    assert trace is not None
    assert [(k["head"], k["relation"], k["tail"]) for k in json.loads(trace["steps"][0]["kept"])] == [
        ("Kismet", "has genre", "Drama")]
    assert run.results[0].correct


def test_the_compiled_graph_takes_a_question_and_topics_under_a_checkpointer(movies: Graph) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    app = ODAAgent(movies, None, KGQASettings(mode="no_llm"), kg=KG).compile(InMemorySaver())
    out = app.invoke({"question": "who directed [Sunset Boulevard]", "topics": ["Sunset Boulevard"]},
                     {"configurable": {"thread_id": "t"}})
    assert out["labels"]["Sunset Boulevard"] == "Sunset Boulevard" and len(out["question_vector"]) == 384
    far_ends = [t["tail"] if t["source"] == t["head"] else t["head"] for t in out["observation"]]
    assert out["top_entity"] == next(e for e in far_ends if e != "Sunset Boulevard")
    assert app.get_state({"configurable": {"thread_id": "t"}}).values["answer"] == out["answer"]
