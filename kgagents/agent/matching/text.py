"""The syntactic channel's text: an entity's local name, tokenised and normalised.

Agent-OM splits camelCase, ``_`` and ``-``, lowercases, and deliberately does no stop-word removal
and no stemming. Code-like local names (``MA_0000270``, ``NCI_C12345``) carry no words, so the
label is used instead.
"""

from __future__ import annotations

import re

_CODE_LIKE = re.compile(r"^[A-Za-z]{1,10}[_:]?[A-Za-z]?\d{3,}$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-\s./]+")


def is_code_like(name: str) -> bool:
    """True for identifiers such as ``MA_0000270`` or ``NCI_C12345`` that are not words."""
    return bool(_CODE_LIKE.match(name))


def split_camel(text: str) -> str:
    """A space at every camelCase boundary (``AmountOfSubstance`` → ``Amount Of Substance``, ``PCMember`` →
    ``PC Member``), BEFORE anything lowercases the text and loses the boundaries."""
    return _CAMEL.sub(" ", text)


def tokenize_name(name: str) -> list[str]:
    """Split camelCase, ``_``, ``-`` and whitespace; lowercase; keep every token."""
    return [t.lower() for t in _SEPARATORS.split(split_camel(name)) if t]


def syntactic_text(name: str, label: str | None) -> str:
    """The syntactic-channel text of one entity (label for code-like names)."""
    source = label if (is_code_like(name) and label) else name
    return " ".join(tokenize_name(source))
