"""The matching state machine end to end on the real Neo4j: offline mode, a scripted validator, resume."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import MemorySaver

from kgagents.agent.matching.graph import MatchingAgent
from kgagents.agent.matching.settings import MatchSettings
from kgagents.agent.matching.store import export_alignment
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology import load_ontology
from tests.scripted_chat import ScriptedChatModel

A, B = "http://example.org/confa#", "http://example.org/confb#"


@pytest.fixture
def conf(graph: Graph, fixtures: Path) -> Graph:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    load_ontology(graph, fixtures / "matching" / "conf_a.ttl", name="confa")
    load_ontology(graph, fixtures / "matching" / "conf_b.ttl", name="confb")
    return graph


def _run(agent: MatchingAgent) -> dict:
    """The agent's run on confa → confb, as the final state's run id and matches."""
    result = agent.run({"source": "confa", "target": "confb"})
    return {"run_id": result.run_id, "matches": result.output}


def test_no_llm_run_writes_one_to_one_matches_between_the_two_ontologies(conf: Graph, tmp_path: Path) -> None:
    out = _run(MatchingAgent(conf, None, MatchSettings(mode="no_llm")))
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
    assert {r["mode"] for r in rows} == {"no_llm"}
    run = conf.run_text("MATCH (r:Run {id: $run})-[:ON]->(o:Ontology) RETURN r.model AS model, r.status AS status, "
                        "r.mode AS mode, r.matches AS matches, collect(o.name) AS o", run=out["run_id"])[0]
    assert run["model"].startswith("none") and sorted(run["o"]) == ["confa", "confb"]
    assert (run["status"], run["mode"], run["matches"]) == ("finished", "no_llm", len(pairs))
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


class ScriptedLangChainModel(BaseChatModel):
    """A LangChain chat model (scripted: :func:`_scripted_reply`) that reports usage metadata, as hosted ones do."""

    max_tokens: int | None = None
    caps: list[int | None] = []

    @property
    def _llm_type(self) -> str:
        return "scripted-langchain"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.caps.append(self.max_tokens)
        text = _scripted_reply([{"content": str(m.content)} for m in messages])
        usage = {"input_tokens": 100, "output_tokens": 7, "total_tokens": 107}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])


def test_langchain_chat_model_drives_a_matching_run_scripted(conf: Graph) -> None:
    model = ScriptedLangChainModel(caps=[])
    out = _run(MatchingAgent(conf, model, MatchSettings(threshold=0.3, structural=False)))
    pairs = {(m["source"], m["target"]) for m in out["matches"]}
    assert (A + "Reviewer", B + "Referee") in pairs and (A + "writtenBy", B + "isWrittenBy") in pairs
    assert (A + "Person", B + "Human") not in pairs  # the validator said no
    calls = conf.run_text(
        "MATCH (r:Run {id: $run})-[:MADE_CALL]->(c:LLMCall) "
        "RETURN r.model AS model, count(c) AS n, sum(c.prompt_tokens) AS prompt, sum(c.completion_tokens) AS done",
        run=out["run_id"])[0]
    # every call is in the ledger, with the token counts the model reported (not the word-count estimate)
    assert calls == {"model": "scripted-langchain", "n": len(model.caps), "prompt": 100 * len(model.caps),
                     "done": 7 * len(model.caps)}
    assert 96 in model.caps  # the describe/verbalise replies are capped through the model's max_tokens field


def test_interrupted_run_resumes_from_its_checkpoint(conf: Graph) -> None:
    agent = MatchingAgent(conf, None, MatchSettings(mode="no_llm", batch_size=2))
    app = agent.build().compile(checkpointer=MemorySaver(), interrupt_after=["retrieve"])
    config = {"configurable": {"thread_id": "resume-test"}, "recursion_limit": 1000}
    first = app.invoke({"run_id": "resume-run", "source": "confa", "target": "confb"}, config)
    assert "matches" not in first and first["queue"]
    resumed = app.invoke(None, config)
    straight = _run(MatchingAgent(conf, None, MatchSettings(mode="no_llm", batch_size=2)))
    key = lambda out: sorted((m["source"], m["target"]) for m in out["matches"])  # noqa: E731
    assert key(resumed) == key(straight)


def test_run_scores_against_the_reference_input_and_records_them_on_the_run(conf: Graph, fixtures: Path) -> None:
    reference = fixtures / "matching" / "ref_ab.rdf"
    agent = MatchingAgent(conf, None, MatchSettings(mode="no_llm"))
    result = agent.run({"source": "confa", "target": "confb", "reference": reference})
    gold = {(c.entity1, c.entity2) for c in read_alignment(reference).cells}
    found = {(m["source"], m["target"]) for m in result.output}
    tp = len(found & gold)
    assert result.metric == "f1" and result.scores["tp"] == tp and result.scores["fp"] == len(found) - tp
    assert result.score == pytest.approx(2 * tp / (len(found) + len(gold)))
    run = conf.run_text("MATCH (r:Run {id: $id}) RETURN r.f1 AS f1, r.score AS score, r.metric AS metric, "
                        "r.reference AS reference, r.source AS source", id=result.run_id)[0]
    assert run == {"f1": result.score, "score": result.score, "metric": "f1", "reference": str(reference),
                   "source": "confa"}


def test_a_missing_reference_fails_before_matching_and_the_run_says_failed(conf: Graph, tmp_path: Path) -> None:
    agent = MatchingAgent(conf, None, MatchSettings(mode="no_llm"))
    with pytest.raises(ParseError, match="x.rdf"):
        agent.run({"run_id": "bad-reference", "source": "confa", "target": "confb", "reference": tmp_path / "x.rdf"})
    run = conf.run_text("MATCH (r:Run {id: 'bad-reference'}) RETURN r.status AS status, "
                        "COUNT { ()-[:MATCHES {run_id: 'bad-reference'}]->() } AS matches")[0]
    assert run == {"status": "failed", "matches": 0}


def test_gated_mode_asks_the_validator_only_about_the_uncertain_band_once_per_pair(conf: Graph) -> None:
    chat = ScriptedChatModel([_scripted_reply] * 500)
    # the model's other names (llm_synonyms) are a call of their own: tests/agent/test_matching_synonyms.py
    settings = MatchSettings(mode="gated", threshold=0.3, structural=False, llm_synonyms=False)
    result = MatchingAgent(conf, chat, settings).run({"source": "confa", "target": "confb"})
    assert chat.calls and all(c["purpose"].startswith("validate") for c in chat.calls)  # no LLM-written texts
    asked = [tuple(re.findall(r"name: (\S+)", c["messages"][-1]["content"])[:2]) for c in chat.calls]
    assert len(asked) == len({frozenset(p) for p in asked})  # each pair once, whichever direction asked first
    retrieved = [m for m in result.output if not any(c.startswith("lexical:") for c in m["channels"])]
    for m in retrieved:  # confident candidates unasked, the band only with the validator's yes
        assert (m["similarity"] >= settings.accept_similarity) != m["validated"], m
    pairs = {(m["source"], m["target"]) for m in result.output}
    assert (A + "Reviewer", B + "Referee") in pairs and (A + "Person", B + "Human") not in pairs
    assert result.llm.calls == len(chat.calls)


def _graded_logprobs(messages: list[dict]) -> dict[str, float]:
    """Log-probabilities of a graded validator: leaning yes (0.7) for Reviewer/Referee, slightly (0.55) for every
    other pair — a model whose text would say yes to both."""
    names = frozenset(re.findall(r"name: (\S+)", messages[-1]["content"])[:2])
    yes = 0.7 if names == frozenset(("Reviewer", "Referee")) else 0.55
    return {"Yes": math.log(yes), "No": math.log(1 - yes)}


@pytest.mark.parametrize(("floor", "confirmed"), [(0.5, {"Referee"}), (5.0, set())])
def test_a_graded_validator_confirms_only_pairs_whose_log_odds_reach_the_floor(
        conf: Graph, floor: float, confirmed: set[str]) -> None:
    chat = ScriptedChatModel(["yes"] * 500, logprobs=_graded_logprobs)
    settings = MatchSettings(mode="gated", threshold=0.3, structural=False, validator_min_log_odds=floor,
                             llm_synonyms=False)  # the validator's calls only
    result = MatchingAgent(conf, chat, settings).run({"source": "confa", "target": "confb"})
    assert chat.calls and all(c["max_tokens"] == 1 for c in chat.calls)  # one one-token call per pair
    validated = [m for m in result.output if m["validated"]]
    assert {m["target"].removeprefix(B) for m in validated} == confirmed  # log(0.7/0.3) = 0.85 ≥ 0.5 > log(0.55/0.45)
    stored = conf.run_text("MATCH ()-[m:MATCHES {run_id: $id}]->() WHERE m.validated RETURN m.log_odds AS odds",
                           id=result.run_id)
    assert [round(r["odds"], 2) for r in stored] == [0.85] * len(confirmed)


def test_one_to_many_output_keeps_the_one_to_one_pairs_and_marks_what_it_adds(graph: Graph, tmp_path: Path) -> None:
    prefix = "@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."
    (tmp_path / "one.ttl").write_text(f"""{prefix} @prefix : <http://example.org/one#> .
        :Chair a owl:Class ; rdfs:label "Chair" . :Paper a owl:Class ; rdfs:label "Paper" .""")
    (tmp_path / "two.ttl").write_text(f"""{prefix} @prefix : <http://example.org/two#> .
        :SessionChair a owl:Class ; rdfs:label "chair" . :ProgramChair a owl:Class ; rdfs:label "Chair" .
        :Paper a owl:Class ; rdfs:label "paper" .""")
    for name in ("one", "two"):
        load_ontology(graph, tmp_path / f"{name}.ttl", name=name)
    inputs = {"source": "one", "target": "two"}
    one = MatchingAgent(graph, None, MatchSettings(mode="no_llm")).run(inputs)
    many = MatchingAgent(graph, None, MatchSettings(mode="no_llm", one_to_one=False)).run(inputs)
    o, t = "http://example.org/one#", "http://example.org/two#"
    # the chair has two equally good counterparts: 1:1 keeps one of them, the one-to-many output keeps both
    single = {(m["source"], m["target"]) for m in one.output}
    assert (o + "Paper", t + "Paper") in single and len(single) == len({s for s, _ in single}) == 2
    assert {(m["source"], m["target"]) for m in many.output} == {
        (o + "Paper", t + "Paper"), (o + "Chair", t + "SessionChair"), (o + "Chair", t + "ProgramChair")}
    assert all("many" in m["channels"] for m in many.output if (m["source"], m["target"]) not in single)


def test_shared_entities_are_not_matched_and_the_repair_drops_a_pair_against_disjointness(
        graph: Graph, tmp_path: Path) -> None:
    prefix = ("@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."
              " @prefix v: <http://example.org/vocab#> .")
    (tmp_path / "one.ttl").write_text(f"""{prefix} @prefix : <http://example.org/one#> .
        v:Note a owl:Class ; rdfs:label "Note" . :Person a owl:Class ; rdfs:label "Person" .
        :PaperReviewer a owl:Class ; rdfs:label "paper reviewer" ; rdfs:subClassOf :Person .""")
    (tmp_path / "two.ttl").write_text(f"""{prefix} @prefix : <http://example.org/two#> .
        v:Note a owl:Class ; rdfs:label "Note" . :Person a owl:Class ; rdfs:label "person" .
        :Paper a owl:Class ; rdfs:label "Paper" ; owl:disjointWith :Person .""")
    for name in ("one", "two"):
        load_ontology(graph, tmp_path / f"{name}.ttl", name=name)
    o, t, v = "http://example.org/one#", "http://example.org/two#", "http://example.org/vocab#"

    def pairs(**changed: Any) -> set[tuple[str, str]]:
        result = MatchingAgent(graph, None, MatchSettings(mode="no_llm", **changed)).run({"source": "one",
                                                                                           "target": "two"})
        return {(m["source"], m["target"]) for m in result.output}

    # 'paper reviewer' / 'Paper' differ by one word, but a reviewer is a person and Paper is disjoint with Person
    assert pairs() == {(o + "Person", t + "Person")}
    assert pairs(repair=False, skip_shared=False) == {(o + "Person", t + "Person"), (v + "Note", v + "Note"),
                                                      (o + "PaperReviewer", t + "Paper")}
