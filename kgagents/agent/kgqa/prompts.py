"""The texts ODA's LLM steps send: action choice, reflection (select or generate), answer.

Kept short because the offline models have a 4k context: the observation is cut to the best
``observation_shown`` triples, entities are shown as ``id (name)`` only where the two differ (Wikidata QIDs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kgagents.agent.kgqa.memory import Path, render_memory
from kgagents.agent.kgqa.triples import Triple, numbered

NEIGHBOR, PATH, ANSWER = "GetNeighbor", "GetPath", "Answer"


def entity_line(entity: str, labels: Mapping[str, str]) -> str:
    name = labels.get(entity, entity)
    return entity if name == entity else f"{entity} ({name})"


def _history(history: Sequence[Mapping[str, object]]) -> str:
    done = [str(h["call"]) for h in history if h.get("call")]
    return "\n".join(f"- {c}" for c in done) if done else "(none)"


def action_prompt(question: str, *, entities: Sequence[str], labels: Mapping[str, str], memory: Sequence[Path],
                  observation: Sequence[Triple], history: Sequence[Mapping[str, object]]) -> str:
    """Choose GetNeighbor (only with fewer than two entity ids), GetPath or Answer."""
    tools = []
    if len(entities) < 2:
        tools.append(f"{NEIGHBOR}(<entity id>): the knowledge-graph triples around one entity")
    tools.append(f"{PATH}(<entity id>, <entity id>): the knowledge-graph paths between two entities")
    tools.append(f"{ANSWER}: stop and answer from the memory")
    example = f"{NEIGHBOR}({entities[0]})" if len(entities) == 1 else \
        f"{PATH}({entities[0]}, {entities[1]})" if len(entities) > 1 else ANSWER
    return (
        "You answer a question with a knowledge graph. Choose the next action.\n"
        f"Question: {question}\n"
        f"Entity ids you can use:\n" + "\n".join(f"- {entity_line(e, labels)}" for e in entities) + "\n"
        f"Memory (reasoning paths so far):\n{render_memory(memory)}\n"
        f"Observation (triples most similar to the question, best first):\n{numbered(observation) or '(none)'}\n"
        f"Actions already taken (avoid repeating them):\n{_history(history)}\n"
        "Actions:\n" + "\n".join(f"- {t}" for t in tools) + "\n"
        f"Reply with exactly one action and nothing else, for example: {example}"
    )


def _reflection_context(question: str, memory: Sequence[Path], output: Sequence[Triple]) -> str:
    return (f"Question: {question}\nMemory (reasoning paths so far):\n{render_memory(memory)}\n"
            f"New triples from the knowledge graph:\n{numbered(output)}\n")


def reflection_prompt(question: str, *, memory: Sequence[Path], output: Sequence[Triple], k: int) -> str:
    """Select at most ``k`` of the action's triples (by number) for the memory."""
    return _reflection_context(question, memory, output) + (
        f"Which of the new triples help answer the question? Reply with at most {k} triple numbers separated "
        "by commas (for example: 2, 5), or the word none. Nothing else.")


def generation_prompt(question: str, *, memory: Sequence[Path], output: Sequence[Triple], k: int) -> str:
    """The generated-fact reflection ablation: the model writes facts instead of selecting triples."""
    return _reflection_context(question, memory, output) + (
        f"Write at most {k} facts that help answer the question, one per line, each as: head | relation | tail. "
        "Nothing else.")


def answer_prompt(question: str, *, memory: Sequence[Path], observation: Sequence[Triple]) -> str:
    """The final answer: a word, phrase, number, date, true/false, or a list, nothing else."""
    return (
        "Answer the question using the knowledge-graph facts below.\n"
        f"Question: {question}\n"
        f"Memory (reasoning paths):\n{render_memory(memory)}\n"
        f"Observation (triples most similar to the question, best first):\n{numbered(observation) or '(none)'}\n"
        "Reply with only the answer: a word, a phrase, a number, a date, true or false, or a list with one "
        "item per line. Nothing else."
    )
