"""Text2KGBench through the extraction agent: one agent run per ontology, each sampled test sentence one
document in its own A-Box, scored by the agent with the benchmark's definitions."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.agent.base import RunResult
from kgagents.agent.extraction.agent import DocumentResult, ExtractionAgent
from kgagents.graph.connection import Graph
from kgagents.metrics.text2kgbench import OntologyData, Sentence, Triple, in_benchmark_format, score_ontology
from kgagents.tools.compiler import ToolCatalogue, compile_ontology
from kgagents.tools.feed import FeedOutcome, assert_triples

EXAMPLES = 2  # sentences per ontology whose tool calls are kept in the results file
CORRUPTIONS = ("relation_outside_ontology", "swapped_subject_object", "relation_with_other_signature")


def _tokens(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.lower()))


def similar_examples(sentence: Sentence, pool: Sequence[Sentence], k: int) -> list[dict[str, Any]]:
    """The ``k`` sentences of ``pool`` (the ontology's train sentences) most similar to ``sentence`` by word
    cosine, with their triples, as solved examples — the benchmark's own prompting setting (one similar train
    sentence as a demonstration). Train sentences that share a triple with ``sentence`` are left out, so tuning on
    train sentences never shows the model its own answer (test and train share none)."""
    if k <= 0:
        return []
    own, words = set(sentence.triples), _tokens(sentence.text)
    def cosine(other: Sentence) -> float:
        theirs = _tokens(other.text)
        dot = sum(words[w] * theirs[w] for w in words)
        norm = math.sqrt(sum(v * v for v in words.values()) * sum(v * v for v in theirs.values()))
        return dot / norm if norm else 0.0
    candidates = [s for s in pool if s.id != sentence.id and not own & set(s.triples)]
    ranked = sorted(candidates, key=lambda s: (-cosine(s), s.id))[:k]
    return [{"text": s.text, "triples": [list(t) for t in s.triples]} for s in ranked]


def run_agent(graph: Graph, data: OntologyData, sentence_ids: list[str], *, chat: Any,
              settings: Mapping[str, Any], run_id: str, abox_prefix: str, examples: Sequence[Sentence] = (),
              k: int = 0) -> tuple[ExtractionAgent, RunResult]:
    """The agent on the sampled sentences (with their ground truth: as ``expected`` always, and as the
    ``triples`` to feed in mode ``no_llm``), each with the ``k`` most similar of ``examples`` as solved ones."""
    mode = settings.get("mode", "full")
    catalogue = compile_ontology(data.ontology_path)
    agent = ExtractionAgent(graph, chat, settings, ontology=catalogue, abox=abox_prefix.rstrip(":"))
    wanted = set(sentence_ids)
    documents = [{"id": s.id, "text": s.text, "abox": f"{abox_prefix}{s.id}", "expected": s.triples,
                  **({"triples": s.triples} if mode == "no_llm" else {"examples": similar_examples(s, examples, k)})}
                 for s in data.sentences if s.id in wanted]
    return agent, agent.run({"run_id": run_id, "documents": documents})


def _by_type(results: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(r.get("error_type") or "" for r in results if not r.get("ok")).most_common())


def agent_ontology(graph: Graph, data: OntologyData, sentence_ids: list[str], *, chat: Any,
                   settings: Mapping[str, Any], run_id: str, abox_prefix: str, examples: Sequence[Sentence],
                   k: int, quoted: frozenset[str]) -> dict[str, Any]:
    """LLM mode: what the agent wrote for one ontology (each sentence with ``k`` similar train sentences as solved
    examples), scored in the benchmark's format (objects of ``quoted`` relations in quotes) — next to the no-LLM
    figure on the same sentences (their ground truth fed through the same tools: what an agent that can only write
    through them can reach at best)."""
    agent, run = run_agent(graph, data, sentence_ids, chat=chat, settings=settings, run_id=run_id,
                           abox_prefix=abox_prefix, examples=examples, k=k)
    _, fed = run_agent(graph, data, sentence_ids, chat=None, settings={"mode": "no_llm"}, run_id=f"{run_id}:no_llm",
                       abox_prefix=f"{abox_prefix}no_llm:")
    documents: list[DocumentResult] = run.output
    calls = [c for d in documents for c in d.calls]
    n = max(1, len(documents))
    return {
        "run_id": run.run_id, "sentences": len(documents), "tools": len(agent.catalogue),
        "tool_calls": len(calls), "rejected_calls": sum(not c["result"].get("ok") for c in calls),
        "rejected_by_type": _by_type([c["result"] for c in calls]),
        "repairs": run.properties["repairs"], "unparsed_replies": run.properties["unparsed_replies"],
        "not_in_text": run.properties["not_in_text"],
        "llm_calls_by_step": dict(Counter(r.purpose.removeprefix("extract:") for r in agent.ledger.records)),
        "unparsed_by_step": dict(Counter(step for d in documents for step in d.unparsed_replies)),
        "triples_written": run.properties["triples_written"], "llm_calls": run.llm.calls,
        "tokens_per_sentence": round((run.llm.prompt_tokens + run.llm.completion_tokens) / n),
        "seconds_per_sentence": round(run.seconds / n, 1),
        "quoted_relations": sorted(quoted),
        "scores": score_ontology(data, {d.id: d.triples for d in documents}, sentence_ids, quoted),
        "no_llm_scores": score_ontology(data, {d.id: d.triples for d in fed.output}, sentence_ids, quoted),
        "examples": [{"id": d.id, "sentence": next(s.text for s in data.sentences if s.id == d.id),
                      "calls": [_call_line(c) for c in d.calls],
                      "written": [list(t) for t in in_benchmark_format(d.triples, quoted)],
                      "ground_truth": [list(t) for t in next(s.triples for s in data.sentences if s.id == d.id)]}
                     for d in documents[:EXAMPLES]],
        # every sentence's checked facts (settings check_min_log_odds / propose_min_log_odds), from which `bench
        # text2kgbench-check` learns the floors on train sentences
        "checked": [{"id": d.id, "written": [list(t) for t in d.triples],
                     "checks": [{k: c[k] for k in ("subject", "relation", "object", "source", "log_odds")}
                                for c in d.checks]} for d in documents] if any(d.checks for d in documents) else [],
    }


def _call_line(call: Mapping[str, Any]) -> str:
    result = call["result"]
    args = ", ".join(f"{k}={v!r}" for k, v in call["args"].items())
    return f"[{call['step']}] {call['tool']}({args}) -> {'ok' if result.get('ok') else result.get('error_type')}"


# -- no-LLM: the conformance the tools enforce ---------------------------------------------------------------
def corrupt(triple: Triple, kind: str, catalogue: ToolCatalogue, foreign_relations: list[str],
            rng: random.Random) -> Triple | None:
    """One synthetic error of ``kind`` about the same entities, or None when the kind does not apply."""
    sub, rel, obj = triple
    if kind == "relation_outside_ontology":
        return (sub, rng.choice(foreign_relations), obj) if foreign_relations else None
    if kind == "swapped_subject_object":
        return (obj, rel, sub)
    props = catalogue.tbox.properties.values()
    own = next((p for p in props if p.name == rel), None)
    if own is None:
        return None
    others = sorted(p.name for p in props if (p.domain, p.range, p.kind) != (own.domain, own.range, own.kind))
    return (sub, rng.choice(others), obj) if others else None


def conformance_ontology(graph: Graph, data: OntologyData, sentence_ids: list[str], *, foreign: list[str],
                         seed: int, run_id: str, abox_prefix: str, quoted: frozenset[str]) -> dict[str, Any]:
    """No-LLM mode: the ground truth fed through the tools by the agent, then three corruptions of each of its
    triples fed about the same entities; what the graph holds is scored (objects of ``quoted`` relations in
    quotes, the benchmark's format)."""
    agent, run = run_agent(graph, data, sentence_ids, chat=None, settings={"mode": "no_llm"}, run_id=run_id,
                           abox_prefix=abox_prefix)
    documents: list[DocumentResult] = run.output
    asserted = [c["result"] for d in documents for c in d.calls if c["step"] == "assert"]
    rejected = [(c["args"]["triple"], c["result"]) for d in documents for c in d.calls
                if c["step"] == "assert" and not c["result"].get("ok")]
    corrupted: dict[str, list[FeedOutcome]] = {k: [] for k in CORRUPTIONS}
    for doc in documents:
        truth = list(next(s.triples for s in data.sentences if s.id == doc.id))
        iris = {(e["label"], e["class"]): e["iri"] for e in doc.entities}
        rng = random.Random(f"{seed}:{doc.id}")
        for kind in CORRUPTIONS:
            fed = [c for t in truth if (c := corrupt(t, kind, agent.catalogue, foreign, rng)) is not None
                   and c not in truth]
            corrupted[kind] += assert_triples(agent.runtime(doc.abox), iris, fed)
    examples: dict[str, list[dict[str, Any]]] = {}
    for triple, result in rejected:
        bucket = examples.setdefault(result.get("error_type") or "", [])
        if len(bucket) < 3:
            bucket.append({"triple": list(triple), "message": result.get("message")})
    return {
        "run_id": run.run_id, "sentences": len(documents), "tools": len(agent.catalogue),
        "ground_truth_triples": len(asserted), "accepted": len(asserted) - len(rejected), "rejected": len(rejected),
        "rejected_by_type": _by_type(asserted), "rejection_examples": examples,
        "quoted_relations": sorted(quoted),
        "scores_through_tools": score_ontology(data, {d.id: d.triples for d in documents}, sentence_ids, quoted),
        "scores_ground_truth_itself": score_ontology(data, {s.id: list(s.triples) for s in data.sentences},
                                                     sentence_ids),
        "corruptions": {k: {"fed": len(v), "rejected": sum(not o.result.ok for o in v),
                            "rejected_by_type": _by_type([o.result.as_dict() for o in v])}
                        for k, v in corrupted.items()},
    }
