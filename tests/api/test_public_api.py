"""The package root is the public API: every exported name resolves, type checkers see the same names, and
objects of the wrong kind are refused with a clear error."""

from __future__ import annotations

import ast
import inspect

import pytest

import kgagents
from kgagents.errors import UnsupportedObjectError
from kgagents.paths import REPO_ROOT


def test_every_exported_name_resolves_from_its_module() -> None:
    for name in kgagents.__all__:
        value = getattr(kgagents, name)
        assert getattr(value, "__name__", name) == name, name
    with pytest.raises(AttributeError, match="no attribute 'fake'"):
        kgagents.fake  # noqa: B018
    assert (REPO_ROOT / "kgagents" / "py.typed").is_file()


def test_the_type_checking_imports_list_exactly_the_exports() -> None:
    tree = ast.parse(inspect.getsource(kgagents))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    seen = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert seen == kgagents._EXPORTS


def test_the_scripted_test_model_is_not_part_of_the_package() -> None:
    assert not (REPO_ROOT / "kgagents" / "llm" / "fake.py").exists()
    assert not any("Scripted" in name for name in kgagents.__all__)


def test_both_agents_build_the_same_way() -> None:
    for agent in (kgagents.MatchingAgent, kgagents.EAAgent):
        params = list(inspect.signature(agent.__init__).parameters)
        assert params[:4] == ["self", "graph", "chat", "settings"], agent
        assert list(inspect.signature(agent.build).parameters) == ["self"]
        assert list(inspect.signature(agent.compile).parameters) == ["self", "checkpointer"]


def test_wrong_kinds_of_graph_and_chat_model_are_clear_errors() -> None:
    with pytest.raises(UnsupportedObjectError, match="neo4j.Driver"):
        kgagents.connect(42)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedObjectError, match="BaseChatModel"):
        kgagents.MatchingAgent("bolt://127.0.0.1:1", chat="gpt-4o")
    with pytest.raises(UnsupportedObjectError, match="BaseChatModel"):
        kgagents.EAAgent("bolt://127.0.0.1:1", chat=object())
    with pytest.raises(kgagents.KgAgentsError, match="needs a chat model"):
        kgagents.EAAgent("bolt://127.0.0.1:1")


def test_a_plain_driver_is_used_and_left_open() -> None:
    from neo4j import GraphDatabase

    driver = GraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x"))
    graph = kgagents.connect(driver, database="other")
    assert graph.driver is driver and graph.settings.database == "other"
    graph.close()
    assert not driver._closed  # the caller's driver: closing the Graph leaves it alone
    driver.close()
