"""The local Neo4j instance's password: generated once, kept in a file only its owner can read.

Why a file and not a fixed default: a fixed password printed in the README lets anyone who can reach the port (or a
web page in the user's browser) run any Cypher. Each instance gets a random password on its first start, written
with mode 0600 to ``<instance dir>/password``; every command reads it from there (``KGAGENTS_NEO4J_PASSWORD``
overrides it). Instances made before passwords were generated have no such file and were given one of the old
fixed passwords (:data:`LEGACY_PASSWORDS`); which one is told by the hash ``neo4j-admin`` left in
``data/dbms/auth.ini``, checked here offline (no failed logins, which the server would count towards locking the
user out). ``kgagents neo4j start`` replaces such a password with a generated one the next time it launches the
server.

This module imports nothing from kgagents, so :mod:`kgagents.config` can use it to find the default password.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

#: the fixed passwords instances were made with before passwords were generated (the dev server's, the tests')
LEGACY_PASSWORDS = ("kgagents-dev", "kgagents-test")
#: the file, in the instance directory, holding the instance's password
PASSWORD_FILE = "password"
#: a password the server is being switched to, written before the switch so that a crash in between loses nothing
PENDING_FILE = "password.new"
#: shortest password an instance listening beyond the loopback interface may have
MIN_EXPOSED_LENGTH = 16


def generate_password() -> str:
    """32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by the owner only (0600): created under another name with that mode, then
    renamed over ``path``, so the file is never readable by others, not even for a moment, and never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_password(path: Path) -> str | None:
    """The password stored in ``path`` (``None`` when there is no such file)."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return text or None


def initial_password_matches(auth_ini: Path, password: str) -> bool:
    """Whether ``password`` is the initial password ``neo4j-admin dbms set-initial-password`` stored in ``auth_ini``
    (its line is ``user:SHA-256,<digest>,<salt>,<iterations>:``; the digest is SHA-256 of salt + password, hashed
    again iterations - 1 times). ``False`` for a missing or unreadable file."""
    try:
        _, credentials, _ = auth_ini.read_text(encoding="utf-8").strip().split(":", 2)
        _, digest, salt, iterations = credentials.split(",")
        value = hashlib.sha256(bytes.fromhex(salt) + password.encode("utf-8")).digest()
        for _ in range(int(iterations) - 1):
            value = hashlib.sha256(value).digest()
    except (OSError, ValueError):
        return False
    return hmac.compare_digest(value.hex(), digest)


def legacy_password(instance_dir: Path) -> str | None:
    """The old fixed password an instance made before passwords were generated still has (it has no password file
    and its initial-password hash matches one of :data:`LEGACY_PASSWORDS`), else ``None``."""
    if (instance_dir / PASSWORD_FILE).exists():
        return None
    auth_ini = instance_dir / "data" / "dbms" / "auth.ini"
    return next((p for p in LEGACY_PASSWORDS if initial_password_matches(auth_ini, p)), None)


def instance_password(instance_dir: Path) -> str | None:
    """The password of the local instance in ``instance_dir``: its password file, else the pending one (a switch
    that was interrupted), else the old fixed password it was made with; ``None`` when none is known."""
    return (read_password(instance_dir / PASSWORD_FILE) or read_password(instance_dir / PENDING_FILE)
            or legacy_password(instance_dir))


def weak_for_exposure(password: str) -> bool:
    """Whether ``password`` must not guard a server other machines can reach: an old fixed one, or too short."""
    return password in LEGACY_PASSWORDS or len(password) < MIN_EXPOSED_LENGTH
