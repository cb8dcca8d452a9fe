"""Text2KGBench with the extraction agent: each sampled test sentence is one document and one A-Box."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgagents.agent.extraction.agent import ExtractionAgent, summary
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.metrics.text2kgbench import ABOX_PREFIX, OntologyData, Triple, score_ontology
from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel
from kgagents.llm.ledger import Ledger
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import label_triples
from kgagents.tools.runtime import ToolRuntime

EXAMPLES = 2  # sentences per ontology whose tool calls are kept in the results file


def agent_ontology(graph: Graph, data: OntologyData, sentence_ids: list[str], chat: ChatModel, *,
                   feedback: bool, max_steps: int, tools_per_step: int = 60) -> dict[str, Any]:
    """Run the agent on the sentences and score the triples its A-Boxes hold."""
    catalogue = compile_ontology(data.ontology_path)
    ledger = Ledger()
    model = ledger.wrap(chat)
    settings = ExtractionSettings(feedback=feedback, max_steps=max_steps, tools_per_step=tools_per_step)
    wanted = set(sentence_ids)
    system: dict[str, list[Triple]] = {}
    errors: Counter[str] = Counter()
    calls = unparsed = exhausted = seconds = 0.0
    examples = []
    for sentence in (s for s in data.sentences if s.id in wanted):
        runtime = ToolRuntime(graph, catalogue, abox=f"{ABOX_PREFIX}llm:{sentence.id}", ensure_schema=False)
        result = ExtractionAgent(runtime, model, settings).run(sentence.text)
        system[sentence.id] = label_triples(graph, runtime.abox)
        errors.update(c.result.get("error_type") for c in result.calls if not c.result.get("ok"))
        calls += len(result.calls)
        unparsed += result.unparsed_replies
        exhausted += result.budget_exhausted
        seconds += result.seconds
        if len(examples) < EXAMPLES:
            examples.append({"id": sentence.id, "sentence": sentence.text, "calls": summary(result).splitlines(),
                             "written": [list(t) for t in system[sentence.id]],
                             "ground_truth": [list(t) for t in sentence.triples]})
    totals = ledger.totals()
    n = max(1, len(sentence_ids))
    return {
        "sentences": len(sentence_ids), "tools": len(catalogue), "tool_calls": int(calls),
        "rejected_calls": sum(errors.values()), "rejected_by_type": dict(errors.most_common()),
        "unparsed_replies": int(unparsed), "budget_exhausted": int(exhausted),
        "triples_written": sum(len(t) for t in system.values()),
        "llm_calls": totals.calls, "tokens_per_sentence": round((totals.prompt_tokens + totals.completion_tokens) / n),
        "seconds_per_sentence": round(seconds / n, 1),
        "scores": score_ontology(data, system, sentence_ids), "examples": examples,
    }
