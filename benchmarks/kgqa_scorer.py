"""``kgagents bench kgqa-scorer``: the zero-shot path scorer's weights, chosen on train questions only.

The scorer (:mod:`kgagents.agent.kgqa.scoring`) has four weights that decide which observed path answers when there
is no memory: ``e5_weight`` (the share of multilingual-e5's cosine next to MiniLM's), ``length_penalty`` with
``length_words`` (the cost of a relation, scaled by the question's length) and ``type_weight`` (the end names'
fit). They are chosen together over :data:`GRID`, by one rule stated before the search: the best mean, over the
tuning samples (:data:`TUNE`), of each sample's Hits@1 averaged over its hop counts; :data:`CHECK` (other train
questions) shows how the choice holds on questions it was not chosen on. Every question comes from a benchmark's
``train`` split (:func:`benchmarks.kgqa.splits`), never from a reported one.

How: each question is observed once with :data:`OBSERVED_WITH` (the scorer the project had before this search,
so the candidate paths do not depend on the weights being chosen), each observed path keeps its two cosines, length
and end-name fit, and every grid point re-ranks those paths (the expansion choices are not re-made per grid point).
A path is right when its best-supported end entity is a gold answer (Hits@1).

With a model (:func:`search_model`, ``--with-model``): the same samples observed once with the current defaults,
and one of the model's checks chosen by the same rule (weight 0: the call is off): ``--check direct``, each question
asked once whether its answer is stored directly about its topic (the model's log-odds), ``direct_weight`` ×
``direct_center`` over :data:`DIRECT_GRID`; ``--check relations``, each question asked about every relation name
among its best observed paths, ``relation_weight`` × ``relation_center`` over :data:`RELATION_GRID`; ``--check
chain``, the model writes each question's relation chain once (:mod:`kgagents.agent.kgqa.chains`), and where the
observation reached none of its paths they are walked as the agent walks them, ``chain_weight`` × ``chain_collapsed``
× ``chain_partial`` over :data:`CHAIN_GRID`.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.kgqa import dataset, ensure_kg, splits
from benchmarks.provenance import file_slug, write_results
from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.chains import (
    Chain,
    chain_prompt,
    collapsed,
    common,
    topics_bracketed,
    undirected,
)
from kgagents.agent.kgqa.composition import (
    forwards,
    named_relations,
    parsed_chain,
    shares_a_value,
    there_and_back,
    unnamed,
)
from kgagents.agent.kgqa.llm_steps import LLMSteps
from kgagents.agent.kgqa.paths import ObservedPath, relation_names
from kgagents.agent.kgqa.questions import given_topics, masked, presence
from kgagents.agent.kgqa.scoring import Query, relation_shift, second_encoder
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.base import Embedder
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import prepare_kg, seeded_sample
from kgagents.llm.client import ChatModel
from kgagents.llm.parallel import map_on_slots

#: the weights searched (every combination)
GRID: dict[str, tuple[Any, ...]] = {
    "e5_weight": (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7),
    "length_penalty": (0.02, 0.03, 0.04, 0.05, 0.06),
    "type_weight": (0.0, 0.1, 0.25, 0.5),
    "length_words": (None, 6, 8, 10),
}
#: (dataset, train questions per hop count, sample seed): the samples the weights are chosen on
TUNE = (("metaqa", 200, 1), ("pq-2h", 300, 1), ("pq-3h", 300, 1))
#: other train questions, to see how the choice holds
CHECK = (("metaqa", 200, 2),)
#: the observation the paths come from: the scorer before this search
OBSERVED_WITH = {"e5_weight": 0.0, "length_penalty": 0.06, "length_words": None, "type_weight": 0.5}
SPLIT_SEED = 7  # the benchmarks' split seed (bench kgqa --seed)
#: the model's direct check, searched with the scorer's weights at their defaults (weight 0: off)
DIRECT_GRID: dict[str, tuple[Any, ...]] = {
    "direct_weight": (0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12),
    "direct_center": (0.6, 0.8, 0.9, 1.0, 1.1, 1.2),
}
#: the model's relation check, searched likewise (weight 0: off)
RELATION_GRID: dict[str, tuple[Any, ...]] = {
    "relation_weight": (0.0, 0.005, 0.01, 0.02, 0.03, 0.05),
    "relation_center": (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0),
}
#: the model's chain check, searched likewise (weight 0: off)
CHAIN_GRID: dict[str, tuple[Any, ...]] = {
    "chain_weight": (0.0, 0.05, 0.1, 0.2, 0.3),
    "chain_collapsed": (0.25, 0.5, 1.0),
    "chain_partial": (0.0, 0.25, 0.5, 0.75),
}
#: the question's wording read without a model, searched likewise with the chain shares at their defaults (weights
#: and penalty 0: off): the parsed chain and its steps' direction, the shared-value cue, the naming check
PARSE_GRID: dict[str, tuple[Any, ...]] = {"parse_weight": (0.0, 0.02, 0.05, 0.1, 0.2, 0.3),
                                          "parse_backward_share": (1.0, 0.5, 0.25),
                                          "share_weight": (0.0, 0.02, 0.05, 0.1, 0.2),
                                          "unnamed_penalty": (0.0, 0.02, 0.05, 0.1),
                                          "unnamed_margin": (0.0, 0.03, 0.06)}
#: each parse-check setting's value that switches its reading off (the margin only tunes the naming check)
PARSE_OFF: dict[str, float] = {"parse_weight": 0.0, "parse_backward_share": 1.0, "share_weight": 0.0,
                               "unnamed_penalty": 0.0}
#: per check: its grid, the benchmark's title, the results file's stem
CHECKS: dict[str, tuple[dict[str, tuple[Any, ...]], str, str]] = {
    "direct": (DIRECT_GRID, "KGQA direct check (the model's answer-distance prior)", "kgqa/scorer/direct_train"),
    "relations": (RELATION_GRID, "KGQA relation check (the model's view of each relation a path takes)",
                  "kgqa/scorer/relations_train"),
    "chain": (CHAIN_GRID, "KGQA chain check (the model writes the question's relation chain)",
              "kgqa/scorer/chain_train"),
    "parse": (PARSE_GRID, "KGQA question wording read without a model (nested noun phrases as a relation chain; "
              "a shared value as a relation there and back)", "kgqa/scorer/parse_train"),
}


@dataclass
class _Scored:
    """One observed question: per path its MiniLM and e5 cosines, length, end-name fit and whether it is right."""

    hops: int
    words: int
    paths: np.ndarray  # rows: minilm, e5, length, type_score, right (in the observation's order)
    direct: float = 0.0  # the model's log-odds that the answer is stored directly about the topic
    relations: list[list[float]] = field(default_factory=list)  # relation check: per head path, its relations' odds
    asked: int = 0  # relation check: the relation names the model was asked about
    #: chain check, per path row: equal to the written chain, equal once collapsed, the share in common in order
    #: (chains.chain_gain's three cases), it has answers, it was walked because the observation missed the chain
    chain: np.ndarray | None = None
    written: bool = False  # chain check: the model's reply was a usable chain
    parse: np.ndarray | None = None  # the same per path row for the parsed chain (composition.parsed_chain)
    parsed: bool = False  # the question was read as a chain
    shared: np.ndarray | None = None  # per path row: the question asks for a shared value and the path goes there
    # and back (composition.shares_a_value, there_and_back)
    forward: np.ndarray | None = None  # per path row: it takes every step forwards (composition.forwards)
    #: per naming margin, per path row: its relations no word of the question names (composition.unnamed)
    unnamed: dict[float, np.ndarray] = field(default_factory=dict)


def _path_rows(agent: ODAAgent, e5: Embedder, e5_vectors: dict[str, np.ndarray], question: Any, text: str,
               query: Query, observed: Sequence[ObservedPath]) -> np.ndarray:
    """The rows of :attr:`_Scored.paths` for ``observed``: MiniLM's cosine (the KG embedder alone), e5's (its path
    text vectors kept in ``e5_vectors``: path texts repeat across questions), length, end-name fit, right."""
    gold = {a.id for a in question.answers if a.id} | {a.name.lower() for a in question.answers if a.name}
    texts = [p.text for p in observed]
    minilm = agent.scorer.vectors(texts) @ query.vector if texts else np.zeros(0)
    missing = [t for t in dict.fromkeys(texts) if t not in e5_vectors]
    if missing:
        e5_vectors.update(zip(missing, e5.embed(missing), strict=True))
    second = np.array([e5_vectors[t] for t in texts]) @ e5.embed([text])[0] if texts else np.zeros(0)
    right = [bool(p.ends) and (p.ends[0] in gold or (p.end_names[0] or "").lower() in gold) for p in observed]
    return np.array([minilm, second, [p.length for p in observed], [p.type_score for p in observed], right],
                    dtype=np.float64).reshape(5, len(observed)).T


def _observe(graph: Graph, name: str, per_hop: int, seed: int, observed_with: dict[str, Any] | None = None,
             chat: ChatModel | None = None, check: str = "direct") -> list[_Scored]:
    """The sample's questions observed with ``observed_with`` (default :data:`OBSERVED_WITH`); with ``chat``, each
    question's ``check`` too: ``direct`` (one call) or ``relations`` (one call per relation name among the
    observation's best ``relation_paths`` paths, as the agent asks)."""
    ds = dataset(name)
    ensure_kg(graph, ds)
    prepare_kg(graph, ds.kg, get_embedder())
    learned, _ = splits(ds, SPLIT_SEED)
    usable = [q for q in learned if q.extra.get("kb_consistent", True)] if ds.only_kb_consistent else learned
    by_hops: dict[int, list[Any]] = {}
    for q in usable:
        by_hops.setdefault(q.hops or 0, []).append(q)
    questions = [q for hops in sorted(by_hops) for q in seeded_sample(by_hops[hops], per_hop, seed)]
    if check in ("chain", "parse"):
        return _observe_chains(graph, ds.kg, questions, observed_with or {}, chat if check == "chain" else None)
    weights = OBSERVED_WITH if observed_with is None else observed_with
    agent = ODAAgent(graph, None, KGQASettings(mode="no_llm", memory=False, **weights), kg=ds.kg)
    names, _, _ = presence(graph, ds.kg, questions)
    relation_labels = agent.observer.names.get() if chat is not None and check == "relations" else None
    e5 = second_encoder()
    e5_vectors: dict[str, np.ndarray] = {}  # path texts repeat across questions
    out, heads = [], []
    texts_asked = [masked(q.question, [names.get(t, t) for t in given_topics(q)]) for q in questions]
    for q, text in zip(questions, texts_asked, strict=True):
        query = agent.scorer.query(text)
        observed = agent.observer.observe(query, given_topics(q)).paths
        rows = _path_rows(agent, e5, e5_vectors, q, text, query, observed)
        out.append(_Scored(q.hops or 0, len(text.split()), rows))
        if relation_labels is not None:
            heads.append([relation_names(p.key, relation_labels) for p in observed[: agent.settings.relation_paths]])
    if chat is not None:
        steps = LLMSteps(chat, max_tokens=1)
        if check == "direct":
            for s, odds in zip(out, map_on_slots(chat, steps.direct, texts_asked), strict=True):
                s.direct = odds
        else:
            for s, text, head in zip(out, texts_asked, heads, strict=True):
                asked = steps.relations(text, [r for rs in head for r in rs])
                s.relations, s.asked = [[asked[r] for r in rs] for rs in head], len(asked)
    return out


def hits(scored: Sequence[_Scored], e5_weight: float, length_penalty: float, type_weight: float,
         length_words: int | None, direct_weight: float = 0.0, direct_center: float = 0.0,
         relation_weight: float = 0.0, relation_center: float = 0.0, chain_weight: float = 0.0,
         chain_collapsed: float = 0.0, chain_partial: float = 0.0, parse_weight: float = 0.0,
         share_weight: float = 0.0, parse_backward_share: float = 1.0, unnamed_penalty: float = 0.0,
         unnamed_margin: float = 0.0) -> dict[int, float]:
    """Hits@1 by hop count when each question answers with its best path under these weights (with the relation
    check: its best among the paths the check re-ranked, as the agent answers)."""
    right: dict[int, list[bool]] = {}
    for s in scored:
        if not len(s.paths):
            right.setdefault(s.hops, []).append(False)
            continue
        scale = length_words / s.words if length_words else 1.0
        score = ((1 - e5_weight) * s.paths[:, 0] + e5_weight * s.paths[:, 1] - length_penalty * scale * s.paths[:, 2]
                 + type_weight * s.paths[:, 3] + direct_weight * (s.direct - direct_center) * (s.paths[:, 2] == 1))
        if relation_weight and s.relations:
            score = score[: len(s.relations)] + np.array(
                [relation_shift(odds, relation_weight, relation_center) for odds in s.relations])
        back = s.shared if s.shared is not None and share_weight else np.zeros(len(s.paths))
        score = score + share_weight * back
        if unnamed_penalty and unnamed_margin in s.unnamed:
            score = score - unnamed_penalty * s.unnamed[unnamed_margin]
        backward = (np.where(s.forward > 0, 1.0, parse_backward_share) if s.forward is not None
                    else np.ones(len(s.paths)))
        for rows, weight, made, ways in ((s.chain, chain_weight, s.written, 1.0),
                                         (s.parse, parse_weight, s.parsed, backward)):
            if rows is not None:  # a chain: chains.chain_gain per path (all of it for a shared value taken there
                # and back, as the agent adds; the parse's backwards steps a share); its walked paths only when made
                shares = np.where(back > 0, 1.0, chain_collapsed)
                score = score + chain_gains(rows, weight, shares, chain_partial) * rows[:, 3] * ways
                if not (weight and made):
                    score = np.where(rows[:, 4] > 0, -np.inf, score)
        right.setdefault(s.hops, []).append(bool(s.paths[int(np.argmax(score)), 4]))
    return {h: round(100 * float(np.mean(v)), 1) for h, v in sorted(right.items())}


def _mean(by_hops: dict[int, float]) -> float:
    return float(np.mean(list(by_hops.values())))


def _sample_name(name: str, per_hop: int, seed: int) -> str:
    return f"{name} {per_hop}/hop seed {seed}"


def _grid_rows(samples: dict[str, list[_Scored]], grid: dict[str, tuple[Any, ...]],
               fixed: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every combination of ``grid``'s values (with the ``fixed`` weights) scored on every sample, unsorted; the
    objective is the mean over the :data:`TUNE` samples of their Hits@1 averaged over hop counts."""
    tune = [_sample_name(*t) for t in TUNE]
    rows: list[dict[str, Any]] = []
    for values in itertools.product(*grid.values()):
        weights = dict(zip(grid, values, strict=True))
        by_sample = {name: hits(scored, **(fixed or {}), **weights) for name, scored in samples.items()}
        rows.append({"weights": weights, "objective": round(float(np.mean([_mean(by_sample[t]) for t in tune])), 2),
                     "hits_at_1": by_sample})
    return rows


def _samples_record(samples: dict[str, list[_Scored]]) -> dict[str, Any]:
    """What a results file says about the questions: the tuning and check samples, the split, their sizes."""
    return {"tuning_samples": [_sample_name(*t) for t in TUNE], "check_samples": [_sample_name(*c) for c in CHECK],
            "split": {"seed": SPLIT_SEED, "part": "train"},
            "questions": {name: len(scored) for name, scored in samples.items()}}


def search(graph: Graph, out: Path | None = None) -> dict[str, Any]:
    """Observe the tuning and check samples, search :data:`GRID`, write ``kgqa_scorer_train``."""
    started, load_before = time.perf_counter(), [round(x, 2) for x in os.getloadavg()]
    samples = {_sample_name(n, k, s): _observe(graph, n, k, s) for n, k, s in (*TUNE, *CHECK)}
    rows = _grid_rows(samples, GRID)
    rows.sort(key=lambda r: -float(r["objective"]))
    chosen = rows[0]
    defaults = KGQASettings()
    current = {k: getattr(defaults, k) for k in GRID}
    result: dict[str, Any] = {
        "benchmark": "KGQA zero-shot scorer weights, chosen on train questions only",
        "rule": "best mean over the tuning samples of Hits@1 averaged over hop counts; grid: every combination",
        "grid": {k: list(v) for k, v in GRID.items()}, **_samples_record(samples), "observed_with": OBSERVED_WITH,
        "chosen": chosen, "before": next(r for r in rows if r["weights"] == OBSERVED_WITH),
        "settings_default": current, "default_is_chosen": current == chosen["weights"], "top": rows[:15],
        "wall_seconds": round(time.perf_counter() - started, 1), "load_average_before": load_before,
    }
    if out is not None:
        write_results(out, "kgqa/scorer/train", result, markdown)
    return result


def _chain_rows(keys: Sequence[Chain], sizes: Sequence[int], written: Chain | None, walked: Sequence[bool]
                ) -> np.ndarray:
    """Per path: [equal to ``written``, equal once collapsed, share in common in order, has answers, walked for
    this chain]."""
    rows = [[float(k == written), float(collapsed(k) == collapsed(written)),
             common(k, written) / max(len(k), len(written)), float(n > 0), float(w)] if written else
            [0.0, 0.0, 0.0, float(n > 0), float(w)] for k, n, w in zip(keys, sizes, walked, strict=True)]
    return np.array(rows, dtype=np.float64).reshape(len(rows), 5)


def chain_gains(rows: np.ndarray, weight: float, collapsed_share: float | np.ndarray, partial_share: float
                ) -> np.ndarray:
    """:func:`~kgagents.agent.kgqa.chains.chain_gain` for every row of :func:`_chain_rows` at once (the grid search
    scores each sample hundreds of times; a test checks the two agree)."""
    exact, same, shared = rows[:, 0], rows[:, 1], rows[:, 2]
    return weight * np.where(exact > 0, 1.0, np.where(same > 0, collapsed_share, partial_share * shared))


def _observe_chains(graph: Graph, kg: str, questions: Sequence[Any], weights: dict[str, Any],
                    chat: ChatModel | None) -> list[_Scored]:
    """The chain checks' observation (:func:`_observe` with ``check='chain'`` or ``'parse'``), as
    :meth:`~kgagents.agent.kgqa.agent.ODAAgent._chain` makes it: each question observed with ``weights``; with
    ``chat`` its chain written by the model (on the server's slots) and, where the settings' ``parse_weight`` is on,
    its words parsed (:func:`~kgagents.agent.kgqa.composition.parsed_chain`); without, the parse alone; each chain's
    paths walked on their own where the observation (and the model's walk) reached none of them."""
    defaults = KGQASettings()
    agent = ODAAgent(graph, None, KGQASettings(mode="no_llm", memory=False, **weights), kg=kg)
    names, _, _ = presence(graph, kg, questions)
    texts = [masked(q.question, [names.get(t, t) for t in given_topics(q)]) for q in questions]
    written: list[Chain | None] = [None] * len(questions)
    if chat is not None:
        prompt = chain_prompt(graph, kg, agent.observer.names.get(), depth=defaults.depth,
                              one_hop=defaults.chain_shots, longer=defaults.chain_longer, seed=defaults.seed)
        steps = LLMSteps(chat, max_tokens=1)
        asked = [topics_bracketed(q.question, [names.get(t, t) for t in given_topics(q)]) for q in questions]
        written = map_on_slots(chat, lambda text: steps.chain(prompt, text), asked)
    parse = chat is None or defaults.parse_weight > 0
    relations = agent.observer.names.get()
    parsed = [parsed_chain(t, relations, agent.scorer.word_vectors, depth=defaults.depth,
                           clauses=defaults.parse_clauses)
              if parse else None for t in texts]
    margins = sorted({*PARSE_GRID["unnamed_margin"], defaults.unnamed_margin})
    e5 = second_encoder()
    e5_vectors: dict[str, np.ndarray] = {}  # path texts repeat across questions
    out = []
    for q, text, by, read in zip(questions, texts, written, parsed, strict=True):
        cue = shares_a_value(text)
        query = agent.scorer.query(text)
        topics = given_topics(q)
        observed = agent.observer.observe(query, topics).paths
        by_model = agent.walk_chain(by, topics, query, observed) if by else []
        by_parse = agent.walk_chain(read.chain, topics, query, [*observed, *by_model],
                                    forward=read.directed and defaults.parse_backward_share < 1) if read else []
        every = [*observed, *by_model, *by_parse]
        keys, sizes = [undirected(p.key) for p in every], [p.size for p in every]
        before = len(observed) + len(by_model)
        named = {m: named_relations(text, relations, agent.scorer.vectors, margin=m) for m in margins}
        out.append(_Scored(
            q.hops or 0, len(text.split()), _path_rows(agent, e5, e5_vectors, q, text, query, every),
            chain=_chain_rows(keys, sizes, by, [len(observed) <= i < before for i in range(len(every))])
            if chat is not None else None, written=by is not None,
            parse=_chain_rows(keys, sizes, read.chain if read else None, [i >= before for i in range(len(every))])
            if parse else None, parsed=read is not None,
            shared=np.array([float(cue and p.size > 0 and there_and_back(p.key)) for p in every]) if parse else None,
            # a reading that does not say the steps' direction (a clause's) reduces no path's gain
            forward=np.array([float(forwards(p.key) or (read is not None and not read.directed)) for p in every]),
            unnamed={m: np.array([float(unnamed(p.key, n)) for p in every]) for m, n in named.items()
                     if n is not None}))
    return out


def search_model(graph: Graph, chat: ChatModel | None, check: str, out: Path | None = None) -> dict[str, Any]:
    """Observe the tuning and check samples with the current defaults, ask ``chat`` each question's ``check``
    (:data:`CHECKS`), search its grid, write ``<stem>_<model>`` with the chosen values as ``--set`` options
    (``settings``: a model's log-odds have their own scale, so the settings' default is off); ``check='parse'``
    needs no model (``chat`` None) and is weighed against the settings' default, as :func:`search` is."""
    grid, title, stem = CHECKS[check]
    weight = next(iter(grid))
    started, load_before = time.perf_counter(), [round(x, 2) for x in os.getloadavg()]
    defaults = KGQASettings()
    scorer = {k: getattr(defaults, k) for k in GRID}
    samples = {_sample_name(n, k, s): _observe(graph, n, k, s, scorer, chat, check) for n, k, s in (*TUNE, *CHECK)}
    fixed = ({**scorer, "chain_collapsed": defaults.chain_collapsed, "chain_partial": defaults.chain_partial}
             if check == "parse" else {**scorer, **{k: getattr(defaults, k) for k in PARSE_GRID}}
             if check == "chain" else scorer)
    rows = _grid_rows(samples, grid, fixed)
    rows.sort(key=lambda r: (-float(r["objective"]), r["weights"][weight]))  # ties: the smaller weight
    chosen = rows[0]
    asked = ({"direct_by_hops": {name: {h: round(float(np.mean([s.direct for s in scored if s.hops == h])), 3)
                                        for h in sorted({s.hops for s in scored})}
                                 for name, scored in samples.items()}} if check == "direct" else
             {"relations_asked": {name: round(float(np.mean([s.asked for s in scored])), 2)
                                  for name, scored in samples.items()}} if check == "relations" else
             {"chains_written" if check == "chain" else "chains_parsed":
                  {name: sum(s.written if check == "chain" else s.parsed for s in scored)
                   for name, scored in samples.items()},
              "chains_walked": {name: sum(bool(rows is not None and rows[:, 4].any())
                                          for s in scored for rows in [s.chain if check == "chain" else s.parse])
                                for name, scored in samples.items()},
              **({k: getattr(defaults, k) for k in PARSE_GRID} if check == "chain" else {})})
    # each reading switched off in turn, the others as chosen (the parse check: what each earns)
    ablation = {key: next(r for r in rows if r["weights"] == {**chosen["weights"], key: off})
                for key, off in PARSE_OFF.items() if check == "parse" and chosen["weights"][key] != off}
    result: dict[str, Any] = {
        "benchmark": f"{title}, chosen on train questions only",
        "rule": "best mean over the tuning samples of Hits@1 averaged over hop counts (ties: the smaller weight); "
                "grid: every combination; the scorer's weights at their defaults",
        "model": chat.model_name if chat is not None else None, "check": check,
        "grid": {k: list(v) for k, v in grid.items()}, **_samples_record(samples), "observed_with": scorer, **asked,
        "chosen": chosen, "before": next(r for r in rows if all(v == 0 for k, v in r["weights"].items()
                                                                 if k.endswith(("_weight", "_penalty")))),
        **({"settings": " ".join(f"--set {k}={v}" for k, v in chosen["weights"].items())} if chat is not None else
           {"settings_default": {k: getattr(defaults, k) for k in grid},
            "default_is_chosen": all(getattr(defaults, k) == v for k, v in chosen["weights"].items())}),
        **({"ablation": ablation} if ablation else {}),
        "top": rows[:15], "wall_seconds": round(time.perf_counter() - started, 1), "load_average_before": load_before,
    }
    if out is not None:
        write_results(out, stem if chat is None else f"{stem}_{file_slug(chat.model_name)}", result, markdown)
    return result


def _cells(r: dict[str, Any]) -> str:
    return " | ".join(" / ".join(f"{v:.1f}" for v in by_hops.values()) for by_hops in r["hits_at_1"].values())


def markdown(r: dict[str, Any]) -> str:
    samples = list(r["questions"])
    head = "| weights | objective | " + " | ".join(f"{s} (Hits@1 by hops)" for s in samples) + " |"
    lines = [f"# {r['benchmark']}", "", f"Command: `{r['command']}`", "",
             *([f"Model: {r['model']}; mean log-odds of the direct check by hop count: {r['direct_by_hops']}.", ""]
               if "direct_by_hops" in r else []),
             *([f"Model: {r['model']}; relation names asked about per question (mean): {r['relations_asked']}.", ""]
               if "relations_asked" in r else []),
             f"Rule: {r['rule']}. Train split (seed {r['split']['seed']}); paths observed once with "
             f"{r['observed_with']} and re-ranked per grid point. Questions: {r['questions']}.", "",
             head, "|---|---|" + "---|" * len(samples)]
    for label, row in (("chosen", r["chosen"]), ("before", r["before"])):
        lines.append(f"| {label}: {row['weights']} | {row['objective']} | {_cells(row)} |")
    lines += ["", (f"Chosen settings for this model: `{r['settings']}`." if "settings" in r else
                   f"The settings' defaults {'are' if r['default_is_chosen'] else 'are NOT'} the chosen weights "
                   f"({r['settings_default']})."), "", "Best 15:", "", head, "|---|---|" + "---|" * len(samples)]
    lines += [f"| {row['weights']} | {row['objective']} | {_cells(row)} |" for row in r["top"]]
    return "\n".join(lines) + "\n"
