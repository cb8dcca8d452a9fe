"""Where things live on disk, defined once: the source checkout, the shared benchmark data, the results.

Why one module: the benchmark runners, the CLI and the server installer all need these paths, and a copy of
``Path(__file__).parents[2] / ...`` in each of them drifts. The shared data directory can be moved with
``KGAGENTS_DATA_DIR`` (see :class:`kgagents.config.DataSettings`).
"""

from __future__ import annotations

from pathlib import Path

from kgagents.config import DataSettings
from kgagents.errors import InputFileError

#: The source checkout (the package is installed editable, so this is where ``docker/`` is).
REPO_ROOT = Path(__file__).resolve().parents[1]


def data_dir(*parts: str) -> Path:
    """A path inside the shared benchmark data (default ``../shared/data`` next to the checkout)."""
    return DataSettings().dir.joinpath(*parts)


def require_file(path: Path, what: str) -> Path:
    """``path`` if it is a file; else :class:`InputFileError` saying which: a folder given for a file is not
    "not found"."""
    if path.is_dir():
        raise InputFileError(f"{what} {path}: is a directory; give a file.")
    if not path.is_file():
        raise InputFileError(f"{what} {path}: no such file.")
    return path
