"""Agent-OM as a LangGraph ``StateGraph`` whose retrieval and matching run in Neo4j.

    prematch → texts → embed → retrieve → validate ⟲ → merge → propagate → write

* ``prematch``: exact label/synonym matches (offline, 1:1) — the LLM is never spent on them.
* ``texts``: channel texts on the entity nodes (syntactic; lexical = LLM description, or label +
  synonyms offline; semantic = LLM verbalisation of the entity's triples). LLM texts are written per
  batch, so an interrupted run only describes what is left.
* ``embed``: one vector property per channel text (the candidate engine indexes the scopes it searches).
* ``retrieve``: per channel, kind and direction, the candidate engine's kNN in Neo4j (cosine ≥ T, top-k) and RRF.
* ``validate``: per entity, walk the fused rank groups and accept the first candidate the LLM confirms
  (offline: the top group's best). Runs ``batch_size`` entities per step; each step is checkpointed.
* ``merge``: keep a pair only if both directions chose it (Agent-OM's bidirectional merger).
* ``propagate``: structural propagation — mutual-best pairs at a lower cosine whose structural
  neighbours are already matched (validated by the LLM when there is one).
* ``write``: ``MATCHES`` relationships under the run id.

:class:`MatchingAgent` follows the agent contract (:mod:`kgagents.agent.base`): ``run({'source', 'target'[,
'reference']})`` records the run through the run store and returns a :class:`~kgagents.agent.base.RunResult` whose
``output`` is the accepted pairs and whose ``scores`` are P/R/F1 against ``reference`` (an OAEI alignment file) when
one is given. :meth:`MatchingAgent.build` gives the uncompiled graph to embed in another LangGraph app (input
``{source, target}``, optionally ``run_id``); every value a resumed run needs is in the state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from kgagents.agent.base import Agent, RunResult
from kgagents.agent.matching.agreement import blind_duplicates, judge_matches, judged, vocabularies
from kgagents.agent.matching.background import KINDS as BACKGROUND_KINDS
from kgagents.agent.matching.background import background_matches, background_pairs, with_background_names
from kgagents.agent.matching.candidates import KINDS, channel_property, retrieve, vector_property
from kgagents.agent.matching.confidence import with_confidence
from kgagents.agent.matching.context import derive_context
from kgagents.agent.matching.entities import Entity, fetch_entities, languages_apart, store_texts
from kgagents.agent.matching.fusion import Fused
from kgagents.agent.matching.lexical import (
    Contrasts,
    LexicalEntity,
    LexicalMatch,
    Narrow,
    acronym_matches,
    claimants,
    containment_matches,
    contrast_conflict,
    every_best,
    head_added,
    learn_phrases,
    learn_substitutions,
    lexical_tiers,
    narrowed,
    one_to_one,
    phrase_matches,
    shorter_name,
    substitution_matches,
    tied,
    typo_matches,
    variant_matches,
)
from kgagents.agent.matching.llm_steps import LLMSteps
from kgagents.agent.matching.repair import Hierarchy, repair, unrelated_ends
from kgagents.agent.matching.settings import GATED, MatchSettings
from kgagents.agent.matching.store import write_matches
from kgagents.agent.matching.synonyms import listed_name_matches, synonym_matches
from kgagents.embeddings import get_embedder, multilingual_e5
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.e5_multilingual import MODEL_NAME as E5_MODEL
from kgagents.embeddings.index import Scope, embed_nodes
from kgagents.errors import InputFileError
from kgagents.graph import runs
from kgagents.graph.connection import GraphLike
from kgagents.graph.properties import seconds_properties
from kgagents.loaders.reference import as_declared
from kgagents.loaders.sssom import read_alignment_file
from kgagents.metrics.oaei import equivalence_pairs, score_pairs

DIRECTIONS = ("forward", "backward")
#: LangGraph steps a run may take: the validate loop runs once per ``batch_size`` entities
RECURSION_LIMIT = 100_000

Progress = Callable[[str, dict[str, Any]], None]


class MatchState(TypedDict, total=False):
    """Everything a run carries between steps (JSON-serialisable, so any checkpointer can store it)."""

    run_id: str
    source: str
    target: str
    reference: str | None  # an OAEI alignment file the run is scored against (in ``result``)
    background: list[str]  # background files loaded in the graph (kgagents.loaders.background), by resolved path
    context: str  # the domain context the LLM steps are given (settings.context, else derived)
    entities: int  # entities of both ontologies (the cost model's Ns + Nt)
    prematched: list[dict[str, Any]]
    prematched_many: list[dict[str, Any]]  # one-to-many output only: the other pairs at a strictest lexical tier
    background_matched: list[dict[str, Any]]  # 1:1 background pairs among entities the lexical pre-match left
    background_pairs: dict[str, str]  # "source<TAB>target" → kind, every pair the background relates
    background_stated: dict[str, float]  # "source<TAB>target" → the files' stated confidence, where below 1
    background_ties: dict[str, list[str]]  # entity → the vocabularies of the mediators the background ties it to
    background_checks: list[dict[str, Any]]  # per judged stage, how the background judged its pairs (agreement)
    llm_synonyms_skipped: int  # entities llm_synonyms would have asked about, over llm_synonyms_max_asked (0: ran)
    background_duplicates: list[dict[str, Any]]  # near-duplicates the background leaves untied, with their namesake
    shared: list[str]  # entities both ontologies declare (skip_shared): neither searched from nor matched
    candidates: dict[str, dict[str, list[dict[str, Any]]]]
    queue: list[list[str]]  # [direction, entity uri] still to validate
    chosen: dict[str, dict[str, dict[str, Any]]]
    verdicts: dict[str, list[Any]]  # "source<TAB>target" → [yes/no, reason]: each pair is asked once per run
    matches: list[dict[str, Any]]
    embedding_model: str  # the model that embedded the channels' texts (setting multilingual)
    timings: dict[str, float]


class MatchingAgent(Agent[MatchSettings]):
    """Agent-OM over one Neo4j database, one embedder and (unless ``mode='no_llm'``) one chat model."""

    job = "matching"
    settings_type = MatchSettings
    state_type = MatchState
    metric = "f1"
    no_llm_label = "lexical pre-match + name/label embeddings"

    def __init__(self, graph: GraphLike, chat: Any = None, settings: MatchSettings | Mapping[str, Any] | None = None,
                 *, embedder: Embedder | None = None, on_update: Progress | None = None) -> None:
        """``embedder``: default :func:`~kgagents.embeddings.get_embedder`; ``on_update(node, values)`` is called
        after every step of :meth:`run` (progress display)."""
        super().__init__(graph, chat, settings)
        self.llm = LLMSteps(self.chat) if self.chat is not None else None
        self.embedder = embedder or get_embedder()
        self._multilingual: Embedder | None = None  # loaded the first time a run needs it (setting multilingual)
        self.on_update = on_update
        self._entities: dict[tuple[str, str], dict[str, Entity]] = {}  # a cache of graph reads, per run

    # -- the contract --------------------------------------------------------------------------
    def prepare(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Check the inputs before anything runs: both ontologies loaded, the reference (if any) readable."""
        missing = [k for k in ("source", "target") if not inputs.get(k)]
        if missing:
            raise InputFileError(f"a matching run needs {' and '.join(missing)}: the names of two loaded ontologies")
        loaded = {row["name"] for row in self.graph.run("ontology/names")}
        unknown = [inputs[k] for k in ("source", "target") if inputs[k] not in loaded]
        if unknown:
            raise InputFileError(f"no loaded ontology named {', '.join(map(repr, unknown))} (loaded: "
                                 f"{', '.join(sorted(loaded)) or 'none'}); load it with `kgagents load ontology FILE`")
        reference = inputs.get("reference")
        if reference is not None:
            read_alignment_file(Path(reference))  # a missing or malformed file fails here, not after the matching
        background = [str(b) for b in inputs.get("background") or ()]
        loaded_background = {row["file"] for row in self.graph.run("matching/background_files", files=background)}
        if set(background) - loaded_background:
            raise InputFileError(f"background not loaded: {', '.join(sorted(set(background) - loaded_background))}; "
                                 "load it with kgagents.loaders.background.load_background (the match command and "
                                 "match_pair(background=...) do)")
        return {"run_id": inputs["run_id"], "source": inputs["source"], "target": inputs["target"],
                "reference": str(reference) if reference is not None else None, "background": background}

    def run_properties(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        reference = inputs.get("reference")
        return {**super().run_properties(inputs), "source": inputs.get("source"), "target": inputs.get("target"),
                "reference": str(reference) if reference is not None else None,
                "background": [str(b) for b in inputs.get("background") or ()]}

    def recursion_limit(self, state: Mapping[str, Any]) -> int:
        return RECURSION_LIMIT

    def run_graph(self, app: Any, state: dict[str, Any] | None, config: dict[str, Any]) -> dict[str, Any]:
        """Stream the graph, telling ``on_update`` after each step."""
        final: dict[str, Any] = {}
        for kind, chunk in app.stream(state, config, stream_mode=["updates", "values"]):
            if kind == "values":
                final = chunk
            elif self.on_update is not None:
                for node, values in chunk.items():
                    self.on_update(node, values or {})
        return dict(final)

    def result(self, state: Mapping[str, Any]) -> RunResult:
        """The accepted pairs; P/R/F1 (and the counts behind them) when the run had a reference."""
        matches = list(state.get("matches", []))
        scores: dict[str, float] = {}
        if state.get("reference"):
            pairs = {(m["source"], m["target"]) for m in matches}
            reference = as_declared(self.graph, read_alignment_file(Path(state["reference"])),
                                    [state["source"], state["target"]])
            scored = score_pairs(pairs, equivalence_pairs(reference))
            scores = {k: float(v) for k, v in scored.model_dump().items()}
        checks = state.get("background_checks", [])
        properties = {"matches": len(matches), "entities": state.get("entities", 0), "context": state.get("context"),
                      "background_judged_dropped": sum(c["dropped"] for c in checks),
                      "background_distrusted": [c["stage"] for c in checks if c["distrusted"]],
                      "llm_synonyms_skipped": state.get("llm_synonyms_skipped", 0),
                      "embedding_model": state.get("embedding_model"),
                      **seconds_properties(state.get("timings", {}))}
        return self.new_result(state, scores=scores, properties=properties, output=matches)

    # -- helpers -------------------------------------------------------------------------------
    def entities(self, state: MatchState, ontology: str) -> dict[str, Entity]:
        """The ontology's entities, read once per run (the cache holds only the current run's)."""
        key = (state.get("run_id", ""), ontology)
        if key not in self._entities:
            self._entities = {k: v for k, v in self._entities.items() if k[0] == key[0]}
            found = fetch_entities(self.graph, ontology, properties=self.settings.include_properties)
            if self.settings.background_names and state.get("background"):
                found = with_background_names(self.graph, found, state["background"])
            shared = set(state.get("shared", ()))
            self._entities[key] = {e.uri: e for e in found if e.uri not in shared}
        return self._entities[key]

    def _timed(self, state: MatchState, stage: str, started: float) -> dict[str, float]:
        return {**state.get("timings", {}), stage: round(time.perf_counter() - started, 3)}

    def _context(self, state: MatchState) -> str:
        return state.get("context") or self.settings.context or ""

    def _ledger_to(self, state: MatchState) -> None:
        """Tie the LLM calls of this process to the run (a resumed process did not run the first node)."""
        if self.chat is not None:
            self.ledger.attach(self.graph, state["run_id"])

    def _matched_uris(self, state: MatchState) -> set[str]:
        """Entities retrieval leaves out: the pre-matched ones and those both ontologies declare."""
        prematched = [*state.get("prematched", []), *state.get("background_matched", []),
                      *state.get("background_duplicates", [])]
        return {p["source"] for p in prematched} | {p["target"] for p in prematched} | set(state.get("shared", ()))

    @property
    def _no_llm(self) -> bool:
        """No LLM-written channel texts (modes ``no_llm`` and ``gated``): the lexical channel embeds labels."""
        return self.llm is None or self.settings.mode == GATED

    # -- nodes ---------------------------------------------------------------------------------
    def prematch(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        # the run id is an optional input, so an embedding app need only pass source and target
        state = {**state, "run_id": state.get("run_id") or runs.new_run_id(self.job)}
        self.start_run(state)
        shared = [row["uri"] for row in self.graph.run("matching/shared", source=state["source"],
                                                       target=state["target"])] if self.settings.skip_shared else []
        state = {**state, "shared": shared}
        found: list[dict[str, Any]] = []
        many: list[dict[str, Any]] = []
        tiers: dict[str, dict[str, int]] = {}
        if self.settings.lexical_prematch:
            src = [e.lexical() for e in self.entities(state, state["source"]).values()]
            tgt = [e.lexical() for e in self.entities(state, state["target"]).values()]
            tiers = lexical_tiers(self.graph, Scope.ontology(state["source"]), Scope.ontology(state["target"]),
                                  src, tgt, one_word_stems=self.settings.one_word_stems)
            found = [asdict(m) for m in one_to_one(tiers)]
            if not self.settings.one_to_one:
                kept = {(m["source"], m["target"]) for m in found}
                many = [asdict(m) for m in every_best(tiers) if (m.source, m.target) not in kept]
        background, related, stated, ties, defined = self._background(state, found, shared)
        duplicates = (self._duplicates(state, every_best(tiers), [*found, *background], ties, defined)
                      if self.settings.background_duplicates else [])
        context = self.settings.context or derive_context(self.graph, state["source"], state["target"])
        entities = sum(len(self.entities(state, o)) for o in (state["source"], state["target"]))
        return {"run_id": state["run_id"], "prematched": found, "prematched_many": many, "shared": shared,
                "background_matched": background, "background_pairs": related, "background_stated": stated,
                "background_ties": ties,
                "background_duplicates": duplicates, "context": context,
                "entities": entities, "timings": self._timed(state, "prematch", started)}

    def _background(self, state: MatchState, prematched: list[dict[str, Any]], shared: list[str],
                    ) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, float], dict[str, list[str]], set[str]]:
        """The 1:1 pairs the background files relate among the entities the lexical pre-match left (see
        :mod:`~kgagents.agent.matching.background`), every related pair's kind (evidence for the other stages'
        pairs) and stated confidence where a file gives one below 1 (an SSSOM row's ``confidence``), the
        mediator vocabularies each entity is tied to (to judge the other stages' pairs), and the entities a file
        defines by a mediator (an equivalence, not only stated below one)."""
        files = state.get("background") or []
        if not files or not self.settings.background:
            return [], {}, {}, {}, set()
        related = background_pairs(self.graph, state["source"], state["target"], files,
                                   hierarchy=self.settings.background_hierarchy)
        entities = {*self.entities(state, state["source"]), *self.entities(state, state["target"])}
        related = {k: m for k, m in related.items() if k[0] in entities and k[1] in entities}
        taken = {p["source"] for p in prematched} | {p["target"] for p in prematched} | set(shared)
        found = [m.as_dict() for m in background_matches(related, exclude=taken)]
        rows = self.graph.run("matching/background_ties", source=state["source"], target=state["target"],
                              files=files)
        return (found, {f"{s}\t{t}": m.kind for (s, t), m in related.items()},
                {f"{s}\t{t}": m.confidence for (s, t), m in related.items() if m.confidence < 1.0},
                vocabularies(rows), {row["uri"] for row in rows if row["defined"]})

    def _duplicates(self, state: MatchState, candidates: list[LexicalMatch], matched: list[dict[str, Any]],
                    ties: dict[str, list[str]], defined: set[str]) -> list[dict[str, Any]]:
        """The near-duplicates the background is blind to (:func:`~kgagents.agent.matching.agreement.blind_duplicates`)
        among the pre-match's pairs at a strictest tier (``candidates``, any arity): an entity the pre-match and the
        background left unmatched and the background ties to nothing, sharing a strictest key with a matched one a
        background file defines (``defined``). Decided here, beside the pre-match whose evidence they share, so the
        later stages do not take them."""
        if not ties:
            return []
        covered = ({v for uri in self.entities(state, state["source"]) for v in ties.get(uri, ())},
                   {v for uri in self.entities(state, state["target"]) for v in ties.get(uri, ())})
        keys = {(m.source, m.target): m for m in candidates}
        found = blind_duplicates(keys, [(m["source"], m["target"]) for m in matched], ties, covered, defined)
        return [asdict(keys[p]) for p in found]

    def texts(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        skip = self._matched_uris(state)
        self._ledger_to(state)
        for ontology in (state["source"], state["target"]):
            entities = self.entities(state, ontology)
            store_texts(self.graph, {
                uri: {"om_syntactic": e.syntactic_text(), "om_labels": e.labels_text()} for uri, e in entities.items()
            })
            if self.llm is not None and not self._no_llm:
                todo = [e for uri, e in entities.items() if uri not in skip]
                self.llm.write_texts(self.graph, todo, self.settings.channels, self._context(state))
        return {"timings": self._timed(state, "texts", started)}

    def embed(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        embedder = self._embedder_for(state)
        for channel in self.settings.channels:  # the candidate engine indexes each searched scope when needed
            text_prop = channel_property(channel, self._no_llm)
            for ontology in (state["source"], state["target"]):
                embed_nodes(self.graph, embedder, scope=Scope.ontology(ontology),
                            text_properties=text_prop, vector_property=vector_property(text_prop))
        return {"embedding_model": embedder.name, "timings": self._timed(state, "embed", started)}

    def _embedder_for(self, state: MatchState) -> Embedder:
        """The configured embedder, or the multilingual one (setting ``multilingual``): 'auto' takes it when the two
        ontologies' labels are mostly in different languages, where an English model compares names poorly."""
        choice = self.settings.multilingual
        if choice == "auto":
            choice = "on" if languages_apart(self.graph, state["source"], state["target"]) else "off"
        if choice == "off" or self.embedder.name.startswith(E5_MODEL):
            return self.embedder
        if self._multilingual is None:
            self._multilingual = multilingual_e5()
        return self._multilingual

    def retrieve(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        kinds = KINDS if self.settings.include_properties else ("Class",)
        exclude = self._matched_uris(state)
        candidates: dict[str, dict[str, list[dict[str, Any]]]] = {}
        sides = ((state["source"], state["target"]), (state["target"], state["source"]))
        for direction, (a, b) in zip(DIRECTIONS, sides, strict=True):
            fused = retrieve(self.graph, source=a, target=b, channels=self.settings.channels,
                             no_llm=self._no_llm, k=self.settings.top_k,
                             threshold=self.settings.threshold, kinds=kinds, exclude=exclude)
            candidates[direction] = {uri: [asdict(f) for f in flist] for uri, flist in fused.items()}
        queue = [[d, uri] for d in DIRECTIONS for uri in sorted(candidates[d])]
        return {"candidates": candidates, "queue": queue, "chosen": {d: {} for d in DIRECTIONS},
                "timings": self._timed(state, "retrieve", started)}

    def validate(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        queue = list(state.get("queue", []))
        batch, rest = queue[: self.settings.batch_size], queue[self.settings.batch_size :]
        chosen = {d: dict(v) for d, v in state.get("chosen", {}).items()}
        verdicts = dict(state.get("verdicts", {}))
        self._ledger_to(state)
        for direction, uri in batch:
            fused = state["candidates"][direction][uri]
            pick = self._choose(state, direction, uri, fused, verdicts)
            if pick is not None:
                chosen[direction][uri] = pick
        timings = dict(state.get("timings", {}))
        timings["validate"] = round(timings.get("validate", 0.0) + time.perf_counter() - started, 3)
        return {"queue": rest, "chosen": chosen, "verdicts": verdicts, "timings": timings}

    def _choose(self, state: MatchState, direction: str, uri: str, fused: list[dict[str, Any]],
                verdicts: dict[str, list[Any]]) -> dict[str, Any] | None:
        """Walk rank groups (ties: higher summed similarity first) and accept the first candidate the validator
        confirms; offline, the first candidate wins. In mode ``gated`` a candidate whose best channel cosine is at
        least ``accept_similarity`` is accepted without asking: the model sees only the uncertain band."""
        ordered = sorted((Fused(**f) for f in fused), key=self._walk_order)
        if not ordered:
            return None
        if not self.settings.validator or self.llm is None:
            best = ordered[0]
            return {"candidate": best.candidate, "score": best.score, "similarity": _similarity(best),
                    "channels": list(best.channels), "validated": False, "reason": None}
        for f in ordered:
            similarity = _similarity(f)
            if self.settings.mode == GATED and similarity is not None and similarity >= self.settings.accept_similarity:
                return {"candidate": f.candidate, "score": f.score, "similarity": similarity,
                        "channels": list(f.channels), "validated": False,
                        "reason": f"cosine {similarity:.3f} ≥ {self.settings.accept_similarity}: accepted unasked"}
            pair = (uri, f.candidate) if direction == "forward" else (f.candidate, uri)
            ok, reason, odds = self._verdict(state, pair, verdicts)
            if ok:
                return {"candidate": f.candidate, "score": f.score, "similarity": similarity,
                        "channels": list(f.channels), "validated": True, "reason": reason, "log_odds": odds}
        return None

    def _verdict(self, state: MatchState, pair: tuple[str, str],
                 verdicts: dict[str, list[Any]]) -> tuple[bool, str, float | None]:
        """The validator's (yes/no, reason, log-odds or None) on a (source, target) pair, asked once per run: the
        other direction and the structural propagation reuse it (``verdicts`` is in the state, so a resumed run
        does not ask again)."""
        key = f"{pair[0]}\t{pair[1]}"
        if key not in verdicts:
            assert self.llm is not None
            verdicts[key] = list(self.llm.validate(self.entities(state, state["source"])[pair[0]],
                                                   self.entities(state, state["target"])[pair[1]],
                                                   self._context(state), self.settings.validator_min_log_odds))
        ok, reason, *odds = verdicts[key]
        return bool(ok), str(reason), (odds[0] if odds else None)

    @staticmethod
    def _walk_order(f: Fused) -> tuple[int, float, str]:
        """Fused rank group first; within a group, higher summed channel similarity first."""
        return f.rank, -sum(f.similarities.values()), f.candidate

    @staticmethod
    def more_to_validate(state: MatchState) -> str:
        return "validate" if state.get("queue") else "merge"

    def merge(self, state: MatchState) -> MatchState:
        started = time.perf_counter()
        forward, backward = state["chosen"]["forward"], state["chosen"]["backward"]
        matches = [
            {"source": p["source"], "target": p["target"], "score": 1.0, "similarity": 1.0,
             "channels": [f"lexical:{p['key']}"], "validated": False, "reason": f"{p['key']} label/synonym match"}
            for p in state.get("prematched", [])
        ]
        matches += [{"source": b["source"], "target": b["target"], "score": 1.0, "similarity": None,
                     "channels": [f"background:{b['kind']}"], "validated": False,
                     "reason": f"background: {b['kind']}" + (f" via {b['via']}" if b.get("via") else "")
                     + (f" (stated confidence {b['confidence']:g})" if b["confidence"] < 1.0 else ""),
                     "background_confidence": b["confidence"]}
                    for b in state.get("background_matched", [])]
        matches += [{"source": d["source"], "target": d["target"], "score": 1.0, "similarity": 1.0,
                     "channels": ["lexical:duplicate"], "validated": False,
                     "reason": f"{d['key']} label/synonym match with an entity already matched and defined by the "
                               "background, this one untied (one-to-many)"}
                    for d in state.get("background_duplicates", [])]
        for s, pick in sorted(forward.items()):
            t = pick["candidate"]
            back = backward.get(t)
            if self.settings.merger and (back is None or back["candidate"] != s):
                continue
            matches.append({"source": s, "target": t, "score": pick["score"], "similarity": pick.get("similarity"),
                            "channels": pick["channels"], "validated": pick["validated"], "reason": pick["reason"],
                            "log_odds": pick.get("log_odds")})
        if not self.settings.merger:
            seen = {(m["source"], m["target"]) for m in matches}
            for t, pick in sorted(backward.items()):
                if (pick["candidate"], t) not in seen:
                    matches.append({"source": pick["candidate"], "target": t, "score": pick["score"],
                                    "similarity": pick.get("similarity"), "channels": pick["channels"],
                                    "validated": pick["validated"], "reason": pick["reason"],
                                    "log_odds": pick.get("log_odds")})
        if not self.settings.one_to_one:
            matches += self._one_to_many(state, {(m["source"], m["target"]) for m in matches})
        return {"matches": matches, "timings": self._timed(state, "merge", started)}

    def _one_to_many(self, state: MatchState, kept: set[tuple[str, str]]) -> list[dict[str, Any]]:
        """The pairs the one-to-many output adds to the 1:1 ones: every other pair sharing a label/synonym key at
        either entity's strictest tier, and every retrieved candidate whose best channel cosine is at least
        ``many_min_similarity`` (in either direction)."""
        added = [{"source": p["source"], "target": p["target"], "score": 1.0, "similarity": 1.0,
                  "channels": [f"lexical:{p['key']}", "many"], "validated": False,
                  "reason": f"{p['key']} label/synonym match (one-to-many)"}
                 for p in state.get("prematched_many", []) if (p["source"], p["target"]) not in kept]
        seen = kept | {(m["source"], m["target"]) for m in added}
        for direction in DIRECTIONS:
            for uri, fused in sorted(state.get("candidates", {}).get(direction, {}).items()):
                for f in (Fused(**x) for x in fused):
                    pair = (uri, f.candidate) if direction == "forward" else (f.candidate, uri)
                    similarity = _similarity(f)
                    if pair in seen or similarity is None or similarity < self.settings.many_min_similarity:
                        continue
                    seen.add(pair)
                    added.append({"source": pair[0], "target": pair[1], "score": f.score, "similarity": similarity,
                                  "channels": [*f.channels, "many"], "validated": False,
                                  "reason": f"cosine {similarity:.3f} ≥ {self.settings.many_min_similarity} "
                                            "(one-to-many)"})
        return added

    def propagate(self, state: MatchState) -> MatchState:
        """Structural propagation, then spelling variants, typos, acronyms, synonyms, lexical propagation (learned
        word substitutions) and containment, each among the entities still unmatched; then the repair against both
        ontologies' hierarchy and disjointness; last, property pairs whose ends the class pairs map apart."""
        started = time.perf_counter()
        settings = self.settings
        matched = {(m["source"], m["target"]) for m in state["matches"]}
        verdicts = dict(state.get("verdicts", {}))
        self._ledger_to(state)
        added = self._structural(state, matched, verdicts) if settings.structural else []
        if settings.variants:
            sources, targets = self._unmatched(state, matched)
            added += self._lexical_rule(state, variant_matches(sources, targets, self._narrow(matched)), matched,
                                        verdicts,
                                        "lexical:variant", "label/synonym words equal up to spelling variants")
        if settings.typos:
            sources, targets = self._unmatched(state, matched)
            added += self._lexical_rule(state, typo_matches(sources, targets, self._narrow(matched)), matched,
                                        verdicts,
                                        "lexical:typo", "label/synonym words equal but for one typo")
        if settings.acronyms:
            sources, targets = self._unmatched(state, matched)
            added += self._lexical_rule(state, acronym_matches(sources, targets, self._narrow(matched)), matched,
                                        verdicts,
                                        "lexical:acronym", "an acronym on one side spelled out on the other")
        if settings.synonyms:
            sources, targets = self._unmatched(state, matched)
            added += self._lexical_rule(state, synonym_matches(sources, targets, narrow=self._narrow(matched)),
                                        matched, verdicts,
                                        "lexical:synonym", "general-English synonyms (WordNet first senses)")
        skipped = 0
        if settings.llm_synonyms and self.llm is not None:
            listed, skipped = self._listed_names(state, matched, verdicts)
            added += listed
        if settings.substitution:
            added += self._substituted(state, matched, verdicts)
        hierarchies = (self._hierarchies(state)
                       if settings.repair or settings.containment_no_subclasses or settings.property_ends else None)
        if settings.containment:
            added += self._contained(state, matched, verdicts, hierarchies)
        matches = _with_background(state["matches"] + added, state.get("background_pairs", {}),
                                   state.get("background_stated", {}))
        matches, checks = judge_matches(matches, state.get("background_pairs", {}), state.get("background_ties", {}),
                                        veto=settings.background_veto, stage_check=settings.background_stage_check,
                                        neighbours=self._judged_neighbours(state, matches))
        if settings.repair and hierarchies is not None:
            matches = self._repaired(matches, hierarchies)
        if settings.property_ends and hierarchies is not None:
            unrelated = set(unrelated_ends([(m["source"], m["target"]) for m in matches], *hierarchies))
            matches = [m for m in matches if (m["source"], m["target"]) not in unrelated]
        matches = with_confidence(matches)
        return {"matches": matches, "verdicts": verdicts, "background_checks": [asdict(c) for c in checks],
                "llm_synonyms_skipped": skipped, "timings": self._timed(state, "propagate", started)}

    def _structural(self, state: MatchState, matched: set[tuple[str, str]],
                    verdicts: dict[str, list[Any]]) -> list[dict[str, Any]]:
        """Mutual-best pairs at cosine ≥ ``structural_threshold`` with an already matched structural neighbour pair
        (repeated while it adds pairs, unless ``structural_rounds_until_stable`` is off); ``matched`` grows."""
        settings = self.settings
        exclude = {s for s, _ in matched} | {t for _, t in matched} | set(state.get("shared", ()))
        kinds = KINDS if settings.include_properties else ("Class",)
        best: list[dict[str, Fused]] = []
        for a, b in ((state["source"], state["target"]), (state["target"], state["source"])):
            fused = retrieve(self.graph, source=a, target=b, channels=settings.channels, no_llm=self._no_llm,
                             k=settings.top_k, threshold=settings.structural_threshold, kinds=kinds, exclude=exclude)
            best.append({uri: self._best(flist) for uri, flist in fused.items() if flist})
        forward, backward = best
        mutual = sorted((s, f.candidate) for s, f in forward.items()  # a stable validation order
                        if f.candidate in backward and backward[f.candidate].candidate == s)
        if settings.contrasts:
            mutual = self._without_contrasts(state, mutual)
        neighbours = self._neighbours({u for pair in mutual for u in pair})
        added: list[dict[str, Any]] = []
        rejected: set[tuple[str, str]] = set()
        while True:  # a pair accepted in one round can support another in the next, until nothing changes
            found = 0
            for s, t in mutual:
                if (s, t) in matched or (s, t) in rejected:
                    continue
                support = [(x, y) for x in neighbours.get(s, ()) for y in neighbours.get(t, ()) if (x, y) in matched]
                if not support:
                    continue
                validated, reason, odds = False, f"structural: {len(support)} matched neighbour pair(s)", None
                if settings.validator and self.llm is not None:
                    ok, why, odds = self._verdict(state, (s, t), verdicts)
                    if not ok:
                        rejected.add((s, t))
                        continue
                    validated, reason = True, f"{reason}; {why}"
                matched.add((s, t))
                found += 1
                added.append({"source": s, "target": t, "score": 0.0, "similarity": _similarity(forward[s]),
                              "channels": ["structural"], "validated": validated, "reason": reason, "log_odds": odds})
            if not found or not settings.structural_rounds_until_stable:
                break
        return added

    def _without_contrasts(self, state: MatchState, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """``pairs`` less those whose names differ by contrasting words on both sides (see
        :class:`~kgagents.agent.matching.lexical.Contrasts`, learned from each ontology's names)."""
        sides = [{uri: e.lexical() for uri, e in self.entities(state, state[o]).items()}
                 for o in ("source", "target")]
        contrasts = [Contrasts(side.values(), self.settings.contrast_min_support) for side in sides]
        source, target = sides
        return [(s, t) for s, t in pairs if s not in source or t not in target
                or not contrast_conflict(source[s], target[t], contrasts)]

    def _unmatched(self, state: MatchState, matched: set[tuple[str, str]]) -> list[list[LexicalEntity]]:
        """The lexical views of both sides' entities that no pair in ``matched`` holds."""
        taken = {s for s, _ in matched} | {t for _, t in matched}
        return [[e.lexical() for uri, e in self.entities(state, o).items() if uri not in taken]
                for o in (state["source"], state["target"])]

    def _listed_names(self, state: MatchState, matched: set[tuple[str, str]],
                      verdicts: dict[str, list[Any]]) -> tuple[list[dict[str, Any]], int]:
        """The chat model as a synonym source (``llm_synonyms``): other names for the entities still unmatched —
        only of a kind both sides still have — and the 1:1 pairs they make
        (:func:`~kgagents.agent.matching.synonyms.listed_name_matches`), validated; ``matched`` grows. With more
        entities to ask than ``llm_synonyms_max_asked``, nothing is asked: ([], how many there were)."""
        assert self.llm is not None
        sources, targets = self._unmatched(state, matched)
        kinds = {e.kind for e in sources} & {e.kind for e in targets}
        sources, targets = [e for e in sources if e.kind in kinds], [e for e in targets if e.kind in kinds]
        entities = {**self.entities(state, state["source"]), **self.entities(state, state["target"])}
        asked = [entities[e.uri] for e in (*sources, *targets)]
        todo = len(self.llm.names_to_ask(self.graph, asked))
        if todo > self.settings.llm_synonyms_max_asked:
            return [], todo
        listed = self.llm.other_names(self.graph, asked, self._context(state))
        found = listed_name_matches(sources, targets, listed, self._narrow(matched))
        return self._lexical_rule(state, found, matched, verdicts, "lexical:llm-synonym",
                                  f"a name {self.llm.model_name} lists for one is a name of the other",
                                  always_validate=True), 0  # a model's names are noisy: the validator gates them

    def _substituted(self, state: MatchState, matched: set[tuple[str, str]],
                     verdicts: dict[str, list[Any]]) -> list[dict[str, Any]]:
        """Lexical propagation: word substitutions learned from the pairs matched so far and from each entity's
        own names (:func:`~kgagents.agent.matching.lexical.learn_substitutions`) make 1:1 pairs among the rest."""
        source, target = self.entities(state, state["source"]), self.entities(state, state["target"])
        anchors = [(source[s].lexical(), target[t].lexical()) for s, t in sorted(matched)
                   if s in source and t in target]
        names = [e.lexical() for side in (source, target) for e in side.values()]
        rules = learn_substitutions(anchors, names, self.settings.substitution_min_support)
        sources, targets = self._unmatched(state, matched)
        found = substitution_matches(sources, targets, rules, self._narrow(matched))
        added = self._lexical_rule(state, found, matched, verdicts, "lexical:substituted",
                                   "label/synonym words equal after one learned word substitution")
        if self.settings.phrase_substitution:
            phrases = learn_phrases(anchors, rules, self.settings.substitution_min_support)
            sources, targets = self._unmatched(state, matched)
            added += self._lexical_rule(state, phrase_matches(sources, targets, phrases, rules, self._narrow(matched)),
                                        matched, verdicts, "lexical:substituted",
                                        "label/synonym words equal after a learned phrase substitution")
        return added

    def _contained(self, state: MatchState, matched: set[tuple[str, str]], verdicts: dict[str, list[Any]],
                   hierarchies: tuple[Hierarchy, Hierarchy] | None) -> list[dict[str, Any]]:
        """Among the entities still unmatched, 1:1 pairs whose word bags differ by at most one word (see
        :func:`~kgagents.agent.matching.lexical.containment_matches`); with ``containment_no_subclasses``, not where
        the entity with fewer words has subclasses (a general concept: the other is likely one of its kinds). The
        validator decides when there is one."""
        sources, targets = self._unmatched(state, matched)
        found = containment_matches(sources, targets, self._narrow(matched))
        lexical = {e.uri: e for e in (*sources, *targets)}
        if self.settings.containment_no_subclasses and hierarchies is not None:
            found = [m for m in found
                     if not _general_with_subclasses(lexical[m.source], lexical[m.target], *hierarchies)]
        if self.settings.containment_same_head:
            found = [m for m in found if lexical[m.source].kind != "Class"
                     or not head_added(lexical[m.source], lexical[m.target])]
        return self._lexical_rule(state, found, matched, verdicts, "lexical:contained",
                                  "label/synonym words equal but for one")

    def _narrow(self, matched: set[tuple[str, str]]) -> Narrow | None:
        """The lexical rules' structural tie-break (``lexical_tiebreak``): of an entity's several candidates, the
        ones with a matched neighbour pair (:func:`~kgagents.agent.matching.lexical.narrowed`); ``matched`` as it
        stands when the rule runs."""
        if not self.settings.lexical_tiebreak:
            return None

        def narrow(found: dict[str, set[str]]) -> dict[str, set[str]]:
            ties = tied(found)  # and the candidates on their other side, which narrowed() asks about with them
            uris = ties | {t for s in ties & found.keys() for t in found[s]} | {
                s for t, ss in claimants(found).items() if t in ties for s in ss}
            if not uris:
                return found
            neighbours = self._neighbours(uris)

            def supported(s: str, t: str) -> bool:
                return any((x, y) in matched for x in neighbours.get(s, ()) for y in neighbours.get(t, ()))
            return narrowed(found, supported)
        return narrow

    def _lexical_rule(self, state: MatchState, found: list[LexicalMatch], matched: set[tuple[str, str]],
                      verdicts: dict[str, list[Any]], channel: str, why_matched: str,
                      *, always_validate: bool = False) -> list[dict[str, Any]]:
        """The pairs a lexical rule found, as matches (validated when there is an LLM, unless
        ``validate_lexical_rules`` is off and the rule is not ``always_validate``); ``matched`` grows."""
        added = []
        validate = self.settings.validator and self.llm is not None and (
            always_validate or self.settings.validate_lexical_rules)
        for m in found:
            validated, reason, odds = False, why_matched, None
            if validate:
                ok, why, odds = self._verdict(state, (m.source, m.target), verdicts)
                if not ok:
                    continue
                validated, reason = True, f"{reason}; {why}"
            matched.add((m.source, m.target))
            # a lexical rule's match scores 1, as the pre-match's do: a report thresholds every pair on one scale
            added.append({"source": m.source, "target": m.target, "score": 0.0, "similarity": 1.0,
                          "channels": [channel], "validated": validated, "reason": reason, "log_odds": odds})
        return added

    def _judged_neighbours(self, state: MatchState, matches: list[dict[str, Any]]) -> dict[str, set[str]] | None:
        """With ``background_corroboration`` and a background that ties entities: the structural neighbours of the
        entities of every pair the background judges (the corroboration of
        :func:`~kgagents.agent.matching.agreement.judge_matches`); None otherwise."""
        if not self.settings.background_corroboration or not state.get("background_ties"):
            return None
        return self._neighbours({m[side] for m in matches if judged(m) for side in ("source", "target")})

    def _neighbours(self, uris: set[str]) -> dict[str, set[str]]:
        """Each entity's direct structural neighbours (``matching/structural_neighbours``)."""
        rows = self.graph.run("matching/structural_neighbours", uris=sorted(uris),
                              domain_range=self.settings.domain_range)
        return {r["uri"]: set(r["neighbours"]) for r in rows}

    def _hierarchies(self, state: MatchState) -> tuple[Hierarchy, Hierarchy]:
        """Both ontologies' hierarchy, disjointness and property domains / ranges."""
        fields = ("parents", "disjoint", "domains", "ranges")
        source, target = (Hierarchy(*({r["uri"]: r[k] for r in rows} for k in fields))
                          for rows in (self.graph.run("matching/hierarchy", ontology=state[side])
                                       for side in ("source", "target")))
        return source, target

    @staticmethod
    def _repaired(matches: list[dict[str, Any]], hierarchies: tuple[Hierarchy, Hierarchy]) -> list[dict[str, Any]]:
        """The matches less those the repair drops (:func:`~kgagents.agent.matching.repair.repair`): the lexical
        pre-match's pairs are trusted; the others are checked most trusted first (merged, structural, substituted,
        contained; within a stage, higher cosine first)."""
        pair = [(m["source"], m["target"]) for m in matches]
        trusted = [pair[i] for i, m in enumerate(matches) if _trust(m) < _TRUST.index("merged")]
        checked = sorted((i for i, m in enumerate(matches) if _trust(m) >= _TRUST.index("merged")),
                         key=lambda i: (_trust(matches[i]), -(matches[i]["similarity"] or 0.0), i))
        kept, _ = repair(trusted, [pair[i] for i in checked], *hierarchies)
        keep = set(trusted) | set(kept)
        return [m for m, p in zip(matches, pair, strict=True) if p in keep]

    @classmethod
    def _best(cls, fused: list[Fused]) -> Fused:
        return min(fused, key=cls._walk_order)

    def write(self, state: MatchState) -> MatchState:
        """The pairs as ``MATCHES``, then the run finished with its scores (an embedded graph records its run)."""
        started = time.perf_counter()
        write_matches(self.graph, state, self.settings.mode, self.model_name)
        timings = self._timed(state, "write", started)
        self.finish_run({**state, "timings": timings})
        return {"timings": timings}

    # -- graph ---------------------------------------------------------------------------------
    def build(self) -> StateGraph:
        """The uncompiled graph, for embedding as a subgraph in another LangGraph app."""
        g = StateGraph(MatchState)
        for name in ("prematch", "texts", "embed", "retrieve", "validate", "merge", "propagate", "write"):
            g.add_node(name, getattr(self, name))
        g.add_edge(START, "prematch")
        g.add_edge("prematch", "texts")
        g.add_edge("texts", "embed")
        g.add_edge("embed", "retrieve")
        g.add_conditional_edges("retrieve", self.more_to_validate, {"validate": "validate", "merge": "merge"})
        g.add_conditional_edges("validate", self.more_to_validate, {"validate": "validate", "merge": "merge"})
        g.add_edge("merge", "propagate")
        g.add_edge("propagate", "write")
        g.add_edge("write", END)
        return g


#: the repair keeps pairs in this order of trust (the stage that found them, by its first channel)
_TRUST = ("lexical:exact", "lexical:bag", "lexical:stem", *(f"background:{k}" for k in BACKGROUND_KINDS),
          "merged", "structural", "lexical:variant", "lexical:typo", "lexical:acronym", "lexical:synonym",
          "lexical:llm-synonym",
          "lexical:substituted", "lexical:contained", "lexical:duplicate")


def _with_background(matches: list[dict[str, Any]], related: Mapping[str, str],
                     stated: Mapping[str, float]) -> list[dict[str, Any]]:
    """The matches, each the background also relates carrying that evidence as one more channel (and the files'
    stated confidence in it, where below 1)."""
    out = []
    for m in matches:
        key = f"{m['source']}\t{m['target']}"
        kind = related.get(key)
        if kind is not None and not any(c.startswith("background:") for c in m["channels"]):
            m = {**m, "channels": [*m["channels"], f"background:{kind}"]}
            if key in stated:
                m["background_confidence"] = stated[key]
        out.append(m)
    return out


def _trust(match: Mapping[str, Any]) -> int:
    first = match["channels"][0] if match["channels"] else ""
    return _TRUST.index(first) if first in _TRUST else _TRUST.index("merged")


def _general_with_subclasses(s: LexicalEntity, t: LexicalEntity, source: Hierarchy, target: Hierarchy) -> bool:
    """Whether the entity whose words the other's contain (plus one) has subclasses in its ontology."""
    general = shorter_name(s, t)
    if general is None:
        return False
    return (source if general == s.uri else target).has_children(general)


def _similarity(f: Fused) -> float | None:
    """The pair's best channel cosine: a score on one scale for every pair, which a report can threshold."""
    return max(f.similarities.values(), default=None)
