"""A loaded KG entity's id as an IRI and back: the stated rule an entity alignment's SSSOM file names entities by.

SSSOM names every entity by a CURIE that expands to an ASCII IRI; a loaded KG's entity ids are whatever its file
had: a JAPE pair's DBpedia URIs (often with non-ASCII characters: ``http://zh.dbpedia.org/resource/北京``), a
Wikidata KG's ``Q42``, a triples file's names (``München``, ``New York``). The rule:

- an id that is an absolute IRI (``scheme://…`` or ``urn:…``) stands for itself, written in its URI form (non-ASCII
  characters percent-encoded as UTF-8, RFC 3987 §3.1, since a CURIE's local part must be ASCII);
- a Wikidata id (``Q…``, ``P…``, ``L…``) of a KG loaded from Wikidata is ``http://www.wikidata.org/entity/<id>``;
- any other id is ``https://w3id.org/kgagents/kg/<kg>/<id>``, the KG's name and the id percent-encoded.

Read back (:func:`stored_ids`), an IRI is tried as the entity ids it can stand for, in that order, so a file this
package wrote — or a third party's ``wikidata:Q42`` — names the loaded entity again.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from kgagents.loaders.sssom import unescape_curie

WIKIDATA_ENTITY = "http://www.wikidata.org/entity/"
KG_BASE = "https://w3id.org/kgagents/kg/"
#: the ``KG.format`` of the loaders that read Wikidata (their entity ids are Wikidata ids)
WIKIDATA_FORMATS = frozenset({"wikidata-truthy-nt", "wikidata-turtle", "wikidata-tables"})

_ABSOLUTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|urn:)", re.IGNORECASE)
_WIKIDATA_ID = re.compile(r"^[QPL][1-9][0-9]*$")
#: what a URI keeps unescaped: its reserved and unreserved ASCII characters, and ``%`` (an escape already there)
_URI_SAFE = ":/?#[]@!$&'()*+,;=%~-._"
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def entity_iri(kg: str, kg_format: str | None, entity_id: str) -> str:
    """The IRI (URI form) entity ``entity_id`` of KG ``kg`` stands for (see the module docstring)."""
    if _ABSOLUTE.match(entity_id):
        return quote(entity_id, safe=_URI_SAFE)
    if kg_format in WIKIDATA_FORMATS and _WIKIDATA_ID.match(entity_id):
        return WIKIDATA_ENTITY + entity_id
    return f"{KG_BASE}{quote(kg, safe='')}/{quote(entity_id, safe='')}"


def stored_ids(iri: str) -> list[str]:
    """The entity ids ``iri`` may stand for, most literal first: itself, its IRI form (non-ASCII escapes decoded),
    either with the escapes an SSSOM CURIE needed decoded (:func:`unescape_curie`), the id under :data:`KG_BASE`, a
    Wikidata id."""
    found = [iri, iri_form(iri)]
    found += [unescape_curie(i) for i in found]
    if iri.startswith(KG_BASE) and "/" in iri[len(KG_BASE):]:
        found.append(unquote(iri[len(KG_BASE):].split("/", 1)[1]))
    if iri.startswith(WIKIDATA_ENTITY) and _WIKIDATA_ID.match(iri[len(WIKIDATA_ENTITY):]):
        found.append(iri[len(WIKIDATA_ENTITY):])
    return list(dict.fromkeys(found))


def iri_form(uri: str) -> str:
    """``uri`` with the escapes of non-ASCII UTF-8 characters decoded (RFC 3987 §3.2); an escaped ASCII character
    (``%22``) stays escaped, as it is part of the IRI too."""
    def decode(run: re.Match[str]) -> str:
        escapes = [run.group(0)[k:k + 3] for k in range(0, len(run.group(0)), 3)]
        out, i = [], 0
        while i < len(escapes):
            j = i
            while j < len(escapes) and int(escapes[j][1:], 16) >= 0x80:
                j += 1
            if j == i:  # an escaped ASCII character
                out.append(escapes[i])
                i += 1
                continue
            try:
                out.append(bytes(int(e[1:], 16) for e in escapes[i:j]).decode("utf-8"))
            except UnicodeDecodeError:
                out.append("".join(escapes[i:j]))
            i = j
        return "".join(out)

    return _ESCAPES.sub(decode, uri)
