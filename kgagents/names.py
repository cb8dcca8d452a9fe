"""Name normalisation shared by the exact-name retrieval signal and the name-bias subset of the EA scorer.

It sits below both (not in the agent, not in :mod:`kgagents.metrics`) so that neither layer imports the other:
retrieval uses it to decide, the scorer to find the links a name matcher gets for free.
"""

from __future__ import annotations

import re
import unicodedata

_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


def name_key(name: str | None) -> str:
    """Accents removed (NFKD), case-folded, letters and digits only: ``"Abdullah_Gül"`` → ``"abdullahgul"``."""
    if not name:
        return ""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in decomposed.casefold() if ch.isalnum() and not unicodedata.combining(ch))


def without_qualifier(name: str) -> str:
    """``name`` less its trailing parenthesised qualifier (``"Cones (Eye)"`` → ``"Cones"``, ``"pons (post-embryonic
    mouse)"`` → ``"pons"``): the qualifier tells senses apart, it is not a word of the name."""
    return _QUALIFIER.sub("", name).strip()
