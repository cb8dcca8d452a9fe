"""The matching state machine end to end on the real Neo4j: offline mode, a scripted validator, resume."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import MemorySaver

from kgagents.agent.matching.graph import MatchingAgent, new_run_id
from kgagents.agent.matching.settings import MatchSettings
from kgagents.agent.matching.store import export_alignment
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from tests.scripted_chat import ScriptedChatModel
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology import load_ontology

A, B = "http://example.org/confa#", "http://example.org/confb#"


@pytest.fixture
def conf(graph: Graph, fixtures: Path) -> Graph:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    load_ontology(graph, fixtures / "matching" / "conf_a.ttl", name="confa")
    load_ontology(graph, fixtures / "matching" / "conf_b.ttl", name="confb")
    return graph


def _run(agent: MatchingAgent, **config: object) -> dict:
    return agent.compile().invoke({"run_id": new_run_id(), "source": "confa", "target": "confb"},
                                  {"recursion_limit": 1000, **config})


def test_no_llm_run_writes_one_to_one_matches_between_the_two_ontologies(conf: Graph, tmp_path: Path) -> None:
    out = _run(MatchingAgent(conf, None, MatchSettings(no_llm=True)))
    pairs = {(m["source"], m["target"]) for m in out["matches"]}
    # identical (tokenised) names are found by the offline lexical pre-match
    assert {(A + "Document", B + "Document"), (A + "Author", B + "Author"),
            (A + "ConferencePaper", B + "Conference_Paper")} <= pairs
    assert len({s for s, _ in pairs}) == len(pairs) == len({t for _, t in pairs})
    rows = conf.run_text(
        "MATCH (s:Resource)-[m:MATCHES {run_id: $run}]->(t:Resource) "
        "RETURN s.uri AS s, t.uri AS t, m.mode AS mode, m.model AS model, "
        "[l IN labels(s) WHERE l <> 'Resource'] = [l IN labels(t) WHERE l <> 'Resource'] AS same_kind",
        run=out["run_id"],
    )
    assert {(r["s"], r["t"]) for r in rows} == pairs
    assert all(r["s"].startswith(A) and r["t"].startswith(B) and r["same_kind"] for r in rows)
    assert {r["mode"] for r in rows} == {"no-llm"}
    run = conf.run_text("MATCH (r:Run {id: $run})-[:ON]->(o:Ontology) RETURN r.model AS model, collect(o.name) AS o",
                        run=out["run_id"])[0]
    assert run["model"].startswith("none") and sorted(run["o"]) == ["confa", "confb"]
    exported = export_alignment(conf, out["run_id"], "confa", "confb", tmp_path / "a.rdf")
    back = read_alignment(tmp_path / "a.rdf")
    assert {(c.entity1, c.entity2) for c in back.cells} == pairs == {(c.entity1, c.entity2) for c in exported.cells}
    assert (back.onto1, back.onto2) == ("http://example.org/confa", "http://example.org/confb")


def _scripted_reply(messages: list[dict]) -> str:
    prompt = messages[-1]["content"]
    if "Do A and B denote" in prompt:
        names = re.findall(r"name: (\S+)", prompt)
        same = {frozenset(p) for p in (("Reviewer", "Referee"), ("writtenBy", "isWrittenBy"), ("Paper", "Article"))}
        return "yes, they are the same" if frozenset(names[:2]) in same else "no, different things"
    return "A term of a conference ontology."


def test_scripted_validator_decides_and_is_never_asked_about_prematched_entities(conf: Graph) -> None:
    chat = ScriptedChatModel([_scripted_reply] * 500)
    settings = MatchSettings(threshold=0.3, structural=False)
    out = _run(MatchingAgent(conf, chat, settings))
    pairs = {(m["source"], m["target"]) for m in out["matches"]}
    assert (A + "Reviewer", B + "Referee") in pairs
    assert (A + "writtenBy", B + "isWrittenBy") in pairs
    assert (A + "Person", B + "Human") not in pairs  # the validator said no
    validated = [c for c in chat.calls if c["purpose"].startswith("validate")]
    asked_about = {n for c in validated for n in re.findall(r"name: (\S+)", c["messages"][-1]["content"])}
    assert not {"Document", "Author", "ConferencePaper", "Conference_Paper"} & asked_about
    calls = conf.run_text("MATCH (:Run {id: $run})-[:MADE_CALL]->(c:LLMCall) RETURN count(c) AS n",
                          run=out["run_id"])[0]["n"]
    assert calls == len(chat.calls)


def test_interrupted_run_resumes_from_its_checkpoint(conf: Graph) -> None:
    agent = MatchingAgent(conf, None, MatchSettings(no_llm=True, batch_size=2))
    app = agent.build().compile(checkpointer=MemorySaver(), interrupt_after=["retrieve"])
    config = {"configurable": {"thread_id": "resume-test"}, "recursion_limit": 1000}
    first = app.invoke({"run_id": "resume-run", "source": "confa", "target": "confb"}, config)
    assert "matches" not in first and first["queue"]
    resumed = app.invoke(None, config)
    straight = _run(MatchingAgent(conf, None, MatchSettings(no_llm=True, batch_size=2)))
    key = lambda out: sorted((m["source"], m["target"]) for m in out["matches"])  # noqa: E731
    assert key(resumed) == key(straight)
