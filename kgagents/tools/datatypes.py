"""Literal checks for XSD datatypes, and the label normalisation that keys instances.

Why strict lexical forms: the point of the tools is that what reaches the graph conforms to the
T-Box, so ``"6603633000.0 (kilometres)"`` is not an ``xsd:decimal`` and ``"2001"`` is an ``xsd:gYear``,
not an ``xsd:date``; the caller is told so and may repair. The one leniency is surrounding quotes
(``"\"320\""``): text and LLM output quote literals, and the quotes are not part of the value.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime
from decimal import Decimal

from kgagents.loaders.rdf_terms import XSD

_INTEGER = re.compile(r"^[+-]?\d+$")
_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_FLOAT = re.compile(r"^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)$")
_TZ = r"(Z|[+-]\d{2}:\d{2})?"
_DATE = re.compile(rf"^(-?\d{{4,}})-(\d{{2}})-(\d{{2}}){_TZ}$")
_GYEAR = re.compile(rf"^-?\d{{4,}}{_TZ}$")
_GYEAR_MONTH = re.compile(rf"^-?\d{{4,}}-(0[1-9]|1[0-2]){_TZ}$")
_QUOTES = ('"', "'", "“", "”", "‘", "’")

_INTEGERS = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
             "nonPositiveInteger", "negativeInteger", "unsignedInt", "unsignedLong", "unsignedShort",
             "unsignedByte"}
_SIGN = {"nonNegativeInteger": lambda n: n >= 0, "positiveInteger": lambda n: n > 0,
         "nonPositiveInteger": lambda n: n <= 0, "negativeInteger": lambda n: n < 0,
         "unsignedInt": lambda n: n >= 0, "unsignedLong": lambda n: n >= 0, "unsignedShort": lambda n: n >= 0,
         "unsignedByte": lambda n: n >= 0}


def unquote(text: str) -> str:
    """``text`` trimmed, without one pair of surrounding quotes."""
    s = text.strip()
    if len(s) >= 2 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s


def normalise_label(text: str) -> str:
    """The key that identifies an instance within its class: NFKC, unquoted, ``_`` as space, casefolded."""
    s = unicodedata.normalize("NFKC", unquote(text)).replace("_", " ")
    return re.sub(r"\s+", " ", s).strip().casefold()


def check_literal(datatype: str, raw: str) -> str | None:
    """The value to store if ``raw`` is in ``datatype``'s lexical space, else ``None``.

    Datatypes outside XSD (or XSD types without a check here) accept any non-empty text.
    """
    value = unquote(raw)
    if not value:
        return None
    name = datatype[len(XSD):] if datatype.startswith(XSD) else ""
    if name in _INTEGERS:
        return value if _INTEGER.match(value) and _SIGN.get(name, lambda n: True)(int(value)) else None
    if name == "decimal":
        return value if _DECIMAL.match(value) else None
    if name in ("double", "float"):
        return value if _FLOAT.match(value) else None
    if name == "boolean":
        lowered = value.lower()
        return lowered if lowered in ("true", "false", "1", "0") else None
    if name == "date":
        return value if _valid_date(value) else None
    if name == "dateTime":
        return value if _valid_datetime(value) else None
    if name == "gYear":
        return value if _GYEAR.match(value) else None
    if name == "gYearMonth":
        return value if _GYEAR_MONTH.match(value) else None
    return value


def _valid_date(value: str) -> bool:
    match = _DATE.match(value)
    if match is None:
        return False
    try:
        date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return False
    return True


def _valid_datetime(value: str) -> bool:
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in value


def describe_datatype(datatype: str) -> str:
    """``xsd:date (YYYY-MM-DD)``: what a caller must send, for error messages."""
    name = datatype[len(XSD):] if datatype.startswith(XSD) else datatype
    forms = {"date": "YYYY-MM-DD", "gYear": "YYYY", "gYearMonth": "YYYY-MM", "dateTime": "YYYY-MM-DDThh:mm:ss",
             "decimal": "a number like 12.5", "double": "a number like 1.2e3", "float": "a number like 1.2e3",
             "boolean": "true or false"}
    form = forms.get(name) or ("a whole number" if name in _INTEGERS else "")
    return f"xsd:{name} ({form})" if form else f"xsd:{name}"


def json_type(datatype: str) -> type | None:
    """The JSON type a value of ``datatype`` may also arrive as, besides its text: ``int`` for the XSD integer
    types, ``float`` for decimal / double / float, ``bool`` for boolean (``None``: text only). Tool schemas say so,
    so a client sends ``42`` for an ``xsd:integer``, not ``"42"``."""
    name = datatype[len(XSD):] if datatype.startswith(XSD) else ""
    if name in _INTEGERS:
        return int
    if name in ("decimal", "double", "float"):
        return float
    return bool if name == "boolean" else None


def lexical(value: str | int | float | bool) -> str:
    """A value as it arrived in a tool call (text, or a JSON number or boolean) in XSD lexical form, for
    :func:`check_literal`: ``True`` is ``true``, ``1e-05`` is ``0.00001``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value):
        return format(Decimal(repr(value)), "f")
    return str(value)
