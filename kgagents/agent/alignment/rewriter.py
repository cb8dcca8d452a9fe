"""Reward-guided path rewriting with an LLM: the EA-Agent paper's rewriting prompt, for fine-tuning data.

Why: a trajectory's reward γ says how good its path was (right answer, a reflector that helped, few tools). To turn
runs into supervised data, each (query, path) is paired with a path that should have earned more. The rule in
:func:`kgagents.agent.alignment.reward.rewrite_path` does that without a model and is always stored with the run;
this rewriter asks the chat model instead, shows it the entity statistics, the executed path and its reward, and
validates the answer like a plan (:func:`~kgagents.agent.alignment.planner.validate_path`). An invalid answer keeps
the rule rewrite, and every record says which one it carries (``rewrite_source``: ``llm`` or ``rule``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kgagents.agent.alignment.planner import PATH_REPLY, TOOL_LIST, ask_for_path
from kgagents.agent.alignment.reward import ALPHA, BETA
from kgagents.agent.alignment.statistics import EntityStatistics
from kgagents.llm.client import ChatModel


class LLMPathRewriter:
    """Proposes a higher-reward tool path for a recorded trajectory."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat

    def prompt(self, stats: EntityStatistics, path: Sequence[str], reward: float) -> str:
        return ("An agent aligned this knowledge-graph entity with a tool path and earned a reward.\n"
                f"Entity: {stats.describe()}\nTools:\n{TOOL_LIST}\n"
                f"Path used: {' > '.join(path)}\nReward: {reward:.3f} = correct answer (1 or 0) "
                f"+ {ALPHA} x (reflector fixed the answer: +1, broke it: -1) + e^(-{BETA} x number of tools).\n"
                f"Rewrite the path to earn a higher reward. {PATH_REPLY}")

    def rewrite(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` ({query, path, reward, rewritten_path}) with the LLM's path, or the rule's when invalid."""
        stats = EntityStatistics(**record["query"])
        path, problem = ask_for_path(self.chat, self.prompt(stats, record["path"], record["reward"]),
                                     purpose="ea-agent:rewrite")
        if problem is None:
            return {**record, "rewritten_path": path, "rewrite_source": "llm"}
        return {**record, "rewrite_source": "rule"}

    def rewrite_all(self, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        return (self.rewrite(r) for r in records)
