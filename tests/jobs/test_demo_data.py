"""The demo's data folder: checked before anything runs, with one error that names it and what it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import InputFileError
from kgagents.jobs.demo import DATA, check_data


def test_a_missing_data_folder_is_named_with_the_variable_that_moves_it(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="KGAGENTS_DATA_DIR") as caught:
        check_data(tmp_path / "nowhere", ["matching"])
    assert f"{tmp_path / 'nowhere'} does not exist" in str(caught.value)


def test_only_the_files_of_the_chosen_jobs_are_required(tmp_path: Path) -> None:
    for part in DATA["kgqa"]:
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / part).write_text("x", encoding="utf-8")
    check_data(tmp_path, ["kgqa"])  # nothing missing for this job
    with pytest.raises(InputFileError) as caught:
        check_data(tmp_path, ["kgqa", "matching"])
    message = str(caught.value)
    assert all(part in message for part in DATA["matching"])
    assert not any(part in message for part in DATA["kgqa"])
