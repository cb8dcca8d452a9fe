"""`bench kgqa --split dev`: settings compared on a dev split get their own results files, never the test's."""

from __future__ import annotations

import pytest

from benchmarks.kgqa import bench, result_stem
from kgagents.errors import KgAgentsError


def test_a_dev_run_has_its_own_results_file_and_only_datasets_with_a_dev_split_have_one() -> None:
    assert result_stem("pq-2h", "gated", "m", memory=False, link=False, sample=None, part="dev") \
        == "kgqa/pq-2h/zeroshot_dev_gated_m"
    assert result_stem("pq-2h", "no_llm", "m", memory=False, link=False, sample=None) == "kgqa/pq-2h/zeroshot_no-llm"
    for name, part, message in (("metaqa", "dev", "metaqa has no dev split"), ("pq-2h", "train", "--split train")):
        with pytest.raises(KgAgentsError, match=message):  # refused before the graph is touched
            bench(None, name, memory=False, part=part)  # type: ignore[arg-type]
