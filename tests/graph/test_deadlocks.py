"""Two writers that lock the same two nodes in opposite orders deadlock on a real server; the server ends one of
them, and :meth:`Graph.in_transaction` runs that one again, so both writes land (an extraction benchmark with two
ontologies at once died of exactly this on a fresh database)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from neo4j import Transaction

from kgagents.graph.connection import Graph

pytestmark = pytest.mark.integration


def test_a_deadlock_victim_is_run_again_and_both_writes_land(graph: Graph) -> None:
    graph.run_text("CREATE (:DeadlockProbe {k: 1}), (:DeadlockProbe {k: 2})")
    both_hold_one = threading.Barrier(2, timeout=30)
    attempts = {"w1": 0, "w2": 0}

    def writer(name: str, first: int, second: int) -> None:
        def work(tx: Transaction) -> None:
            attempts[name] += 1
            tx.run("MATCH (n:DeadlockProbe {k: $k}) SET n[$name] = true", k=first, name=name).consume()
            if attempts[name] == 1:  # the first time, wait until the other writer holds its first node
                both_hold_one.wait()
            tx.run("MATCH (n:DeadlockProbe {k: $k}) SET n[$name] = true", k=second, name=name).consume()
        graph.in_transaction(work)

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(writer, "w1", 1, 2), pool.submit(writer, "w2", 2, 1)]
        for f in futures:
            f.result(timeout=60)
    rows = graph.run_text("MATCH (n:DeadlockProbe) RETURN n.w1 AS w1, n.w2 AS w2")
    assert rows == [{"w1": True, "w2": True}] * 2
    assert sorted(attempts.values()) == [1, 2]  # one writer was the server's victim and ran again
