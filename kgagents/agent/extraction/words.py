"""Word stems, the one measure of word overlap the extraction agent uses (relations offered for a text, the
relation named after a class, whether a name comes from the text).

A 5-letter stem is crude but language-light: ``tonsil`` / ``tonsils``, ``located`` / ``location``,
``Indians`` / ``Indian people`` share one, which is what a small model's paraphrases need."""

from __future__ import annotations

import re


def stems(text: str, shortest: int = 1) -> set[str]:
    """Lower-case 5-letter stems of the words (letters of any script, digits) of at least ``shortest`` characters
    in a text or a camelCase name (``hasTargetTemperature`` → has, targe, tempe)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w[:5] for w in re.findall(r"[^\W_]+", spaced.lower()) if len(w) >= shortest}


def in_text(name: str, text: str) -> bool:
    """Whether ``name`` shares a word with ``text``: a stem of its words of three characters or more, or, when it
    has none (``U.S.``), of its shorter words. A name that shares none was not taken from the text: a small model
    copies it from a solved example, a class name or a placeholder."""
    own = stems(name, 3) or stems(name)
    return bool(own & stems(text))
