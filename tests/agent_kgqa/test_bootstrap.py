"""``kgqa bootstrap`` on the tiny movie KG (real Neo4j, real MiniLM; the paraphrasing model is the scripted one):
generated questions are never wrong (their answers are the KG's), a re-run replaces the previous bootstrap and
keeps labelled examples, the model's paraphrases are cached in the graph, and an interrupted bootstrap leaves the
memory as it was, its run marked failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgagents.agent.kgqa.observation import follow
from kgagents.agent.kgqa.pathmemory import PathMemory
from kgagents.agent.kgqa.settings import BootstrapSettings
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.kgqa import learn
from kgagents.jobs.kgqa_bootstrap import SOURCE, bootstrap
from kgagents.loaders.qa import read_questions
from tests.agent_kgqa.conftest import KG
from tests.scripted_chat import ScriptedChatModel

SETTINGS = BootstrapSettings(topics=50, min_support=1, paraphrase_paths=2, batch=7)


def _examples(graph: Graph) -> list[dict[str, Any]]:
    return graph.run_text("MATCH (x:PathExample {kg: $kg}) RETURN properties(x) AS x ORDER BY x.id", kg=KG)


def test_generated_questions_have_the_kgs_answers_and_a_rerun_replaces_them(movies: Graph, fixtures: Path) -> None:
    memory = PathMemory(movies, KG)
    learn(movies, KG, read_questions(fixtures / "kgqa" / "movies_questions.jsonl"), source="test: labelled")
    labelled = memory.counts()["labelled"]
    first = bootstrap(movies, KG, settings=SETTINGS)
    assert first.model is None and first.template_questions == first.examples > 0 and first.batches > 1
    rows = [r["x"] for r in _examples(movies) if r["x"]["source"] == SOURCE]
    assert len(rows) == first.examples and all("staged" not in x for x in rows)
    for x in rows:
        ends = follow(movies, KG, x["topic"], x["path"], [x["topic"]], 10_000)
        assert len(ends) == x["answers"] > 0, x
        assert "X" in x["masked"] and x["question"] == x["masked"].replace("X", movies.run(
            "kgqa/entity_names", kg=KG, ids=[x["topic"]])[0]["name"], 1)
    stored = movies.run_text("MATCH (p:PathText {kg: $kg}) RETURN count(p) AS n", kg=KG)[0]["n"]
    assert stored >= first.path_types_used  # the path types' texts are embedded once, for every later run
    again = bootstrap(movies, KG, settings=SETTINGS)
    assert memory.counts() == {"examples": labelled + again.examples, "labelled": labelled,
                               "bootstrap": again.examples}
    assert RunStore(movies).get(again.run_id).status == "finished"


def test_paraphrases_are_cached_in_the_graph(movies: Graph) -> None:
    replies = [json.dumps({"questions": ["which things does X go with", "name one thing for X", "tell me"]}),
               json.dumps({"questions": ["what about X", "what about X"]})]
    chat = ScriptedChatModel(replies)
    made = bootstrap(movies, KG, chat=chat, settings=SETTINGS)
    assert made.model_calls == 2 and made.paraphrases_cached == 0
    # the question without X is dropped, a repeated one counted once
    assert made.paraphrases == 3 and made.paraphrased_path_types == 2
    assert made.examples == made.template_questions + 3
    cached = bootstrap(movies, KG, chat=ScriptedChatModel([]), settings=SETTINGS)  # asks nothing: no replies left
    assert cached.model_calls == 0 and cached.paraphrases_cached == 2 and cached.examples == made.examples


def test_an_interrupted_bootstrap_leaves_the_memory_as_it_was(movies: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    before = bootstrap(movies, KG, settings=SETTINGS)
    kept = _examples(movies)
    real = movies.write_rows
    calls = {"n": 0}

    def failing(tx: Any, name: str, rows: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:  # inside the second batch's transaction, after the first batch committed (staged)
            real(tx, name, rows, **kwargs)
            raise RuntimeError("the machine went away")
        return real(tx, name, rows, **kwargs)

    monkeypatch.setattr(movies, "write_rows", failing)
    with pytest.raises(RuntimeError, match="went away"):
        bootstrap(movies, KG, settings=SETTINGS)
    monkeypatch.undo()
    assert _examples(movies) == kept and before.examples > SETTINGS.batch
    assert movies.run_text("MATCH (x:PathExample) WHERE x.staged IS NOT NULL RETURN count(x) AS n")[0]["n"] == 0
    failed = [r for r in RunStore(movies).latest(job="kgqa-bootstrap") if r.status == "failed"]
    assert failed and "went away" in (failed[0].get("error") or "")
