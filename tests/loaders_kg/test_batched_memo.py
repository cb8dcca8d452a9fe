"""The batched loader's entity id -> node id memo (unit tier): exact for what it holds, bounded, hubs stay."""

from __future__ import annotations

import numpy as np

from kgagents.loaders.batched import _NodeMemo


def test_the_memo_returns_what_was_put_and_nothing_else() -> None:
    memo = _NodeMemo(10_000)
    ids = [f"Q{i}" for i in range(20_000)]
    h1, h2 = _NodeMemo.keys(ids)
    memo.put(h1[:10_000], h2[:10_000], np.arange(10_000) * 7)
    assert (memo.get(h1[:10_000], h2[:10_000]) == np.arange(10_000) * 7).all()
    assert (memo.get(h1[10_000:], h2[10_000:]) == -1).all()


def test_the_memo_keeps_kgs_apart() -> None:
    memo = _NodeMemo(100)
    ids = [f"Q{i}" for i in range(50)]
    memo.put(*_NodeMemo.keys(ids, salt=hash("kg1")), np.arange(50))
    assert (memo.get(*_NodeMemo.keys(ids, salt=hash("kg1"))) == np.arange(50)).all()
    assert (memo.get(*_NodeMemo.keys(ids, salt=hash("kg2"))) == -1).all()


def test_the_memo_is_bounded_and_keeps_what_is_used() -> None:
    memo = _NodeMemo(1_000)
    ids = [f"e{i}" for i in range(50_000)]
    h1, h2 = _NodeMemo.keys(ids)
    memo.put(h1[:10], h2[:10], np.arange(10))  # ten hubs, met in every batch
    for lo in range(10, 50_000, 500):
        assert (memo.get(h1[:10], h2[:10]) == np.arange(10)).all()
        found = memo.get(h1[lo:lo + 500], h2[lo:lo + 500])
        assert (found == -1).all()
        memo.put(h1[lo:lo + 500], h2[lo:lo + 500], np.arange(lo, lo + 500))
        assert memo.young.count + memo.old.count <= 2 * 1_000
        assert len(memo.young.node) == len(memo.old.node) == 2_048  # allocated once: memory does not grow
    assert (memo.get(h1[10:1_000], h2[10:1_000]) == -1).all()  # long unused: dropped
