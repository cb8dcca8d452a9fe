"""ODA's hyper-parameters on relation paths, with the seed's defaults where the seed has one.

ODA observes D = 3 levels from each topic entity, keeps the best N = 50 per level and expands the best P = 10 %
to the next level; here these bounds apply to relation paths (a level is one more relation), and ``min_expand``
keeps P % of a small level from rounding down to one path. The action / reflection loop keeps at most K = 15
items per reflection, stops after 8 iterations, samples at temperature 0.4 with at most 500 completion tokens
(the chat model's own temperature; the CLI builds it with this one).

The scorer's weights (``length_penalty`` with ``length_words``, ``type_weight``, ``prior_weight``,
``e5_weight``), the memory's ``memory_order_temperature`` and ``memory_focus``, the LLM gate's ``confident``
threshold and ``verify_weight`` are the only numbers the answers depend on beyond ODA's: their defaults were chosen
on the learning halves of the benchmarks (MetaQA's seeded dev half, PathQuestion's seeded 80 % train and 10 % dev
splits), never on the reported questions, and the benchmark files record them. The zero-shot scorer's
(``e5_weight`` 0.6, ``length_penalty`` 0.02 at ``length_words`` 10, ``type_weight`` 0.1) were chosen together on
train questions only — 200 seeded per MetaQA hop and 300 each of PQ-2H and PQ-3H, best mean of the three
datasets' Hits@1 over a grid — and checked on another 200 per MetaQA hop (`kgagents bench kgqa-scorer`,
results `kgqa/scorer/train.json`). On a user's KG, ``kgqa bootstrap`` may replace ``length_penalty`` by one learned
on the KG's own held-out questions (:mod:`~kgagents.agent.kgqa.scorer_calibration`; runs with that memory use it
unless it is given). The model's direct check (``direct_weight``, ``direct_center``) is off by default:
a model's log-odds have their own scale, so its values are chosen per model on the same train questions
(`kgagents bench kgqa-scorer --with-model`, results `kgqa/scorer/direct_train_<model>.json`) and passed with
``--set``; so are its relation check (``relation_weight``, ``relation_center``; `--check relations`, results
`kgqa/scorer/relations_train_<model>.json`) and its chain check (``chain_weight``, ``chain_collapsed``,
``chain_partial``; `--check chain`, results `kgqa/scorer/chain_train_<model>.json`); a model's chosen values
(:data:`kgagents.llm.models.MODEL_SETTINGS`: the chain check for the local model) apply unless given.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from kgagents.settings import MODEL, AgentSettings, resolve

Mode = Literal["full", "gated", "no_observation", "reflect_similarity", "reflect_random", "reflect_generated",
               "no_llm"]
MODES: tuple[str, ...] = Mode.__args__  # type: ignore[attr-defined]
Ranking = Literal["yes_no", "options"]


class KGQASettings(AgentSettings):
    """What one KGQA run depends on (stored on its ``(:Run)`` node)."""

    mode: Mode = Field("full", description="full ODA, 'gated' (below the gate the few best paths are re-ranked by "
                       "their score plus the model's grade of each, weighted by verify_weight), an "
                       "ablation, or 'no_llm' (no chat model is called)")
    depth: int = Field(3, ge=1, le=6, description="D: longest relation path observed from a topic entity")
    top_n: int = Field(50, ge=1, description="N: best-scoring paths kept in the observation per level")
    top_percent: float = Field(0.10, gt=0.0, le=1.0,
                               description="P: share of a level's scored paths expanded to the next level")
    min_expand: int = Field(3, ge=1, description="at least this many paths of a level are expanded (P % of a "
                            "topic's eight relations would round to one)")
    max_frontier: int = Field(
        5000, ge=1, description="an end set larger than this is not expanded (a hub's end set is still observed "
        "and can answer; only walking on from all of its members is skipped)")
    expand_budget: int | None = Field(
        3000, ge=1, description="relationships read from one expanded path's end set at the next level: its "
        "entities are walked best supported first while their degrees add up to at most this (always the first, "
        "however large); a path found from part of an end set is scored and expanded like any other, and its end "
        "set is read in full when it answers. None: every entity is walked")
    ends_kept: int = Field(200, ge=1, description="end entities kept per observed path in the state and traces "
                           "(the answer path is re-read in full)")
    type_sample: int = Field(5, ge=1, description="best-supported end entities whose names are compared with the "
                             "question (the path's answer type)")
    length_penalty: float = Field(0.02, ge=0.0, description="score subtracted per relation in a path (for a question "
                                  "of length_words words): a longer path must fit the question better to win")
    length_words: int | None = Field(
        10, ge=1, description="a question of this many words (topic masked) pays length_penalty per relation; a "
        "shorter one pays more (× length_words / its words: it names fewer relations), a longer one less; None: "
        "every question pays length_penalty")
    type_weight: float = Field(0.1, ge=0.0, description="weight of the end entities' name fit in a path's score")
    e5_weight: float = Field(
        0.6, ge=0.0, le=1.0, description="share of multilingual-e5-small's cosine in the question–path similarity "
        "(the rest is the KG embedder's, MiniLM by default); 0: the KG's embedder alone (no e5 needed)")
    prior_weight: float = Field(1.0, ge=0.0, description="weight of the path memory's vote in a path's score")
    memory: bool = Field(True, description="use the path memory (learned examples) when the KG has any")
    memory_k: int = Field(10, ge=1, description="nearest learned phrasings (masked questions) that vote for a "
                          "question's path")
    memory_pool: int = Field(100, ge=1, description="candidates the vector index is asked for (it holds every KG's "
                             "phrasings; the nearest memory_k of this KG vote)")
    memory_min_similarity: float = Field(0.5, ge=-1.0, le=1.0,
                                         description="examples less similar to the question than this do not vote")
    memory_temperature: float = Field(0.05, gt=0.0, description="how sharply closer examples outvote looser ones "
                                      "(vote weight exp((similarity − best) / temperature))")
    memory_calibration: bool = Field(
        True, description="the memory votes only for questions at least as close to its phrasings as the threshold "
        "calibrated on the memory itself — each of a sample of its phrasings left out in turn, the similarity above "
        "which the others' vote, and below which the zero-shot answer, got the most right (kgqa/calibration.py); "
        "elsewhere the question is answered zero-shot. False: every phrasing above memory_min_similarity votes")
    memory_calibration_sample: int = Field(300, ge=1, description="phrasings (seeded sample) the vote threshold is "
                                           "calibrated on, each also answered zero-shot (see memory_calibration)")
    memory_order_temperature: float = Field(
        1.0, ge=0.0, description="how sharply the memory's vote among paths of one length follows the order in which "
        "the question's words name their steps (learned from the memory, kgqa/wording.py); 0 turns it off")
    memory_focus: float = Field(0.5, ge=0.0, description="when the memory's vote gives one path at least this "
                                "share, the observation walks only the remembered paths (and walks everything when "
                                "none of them leads anywhere from the topic); 0: whenever the memory votes; above "
                                "1: always explore")
    confident: float = Field(0.5, ge=0.0, description="LLM gate: a best path whose score leads the next different "
                             "answer's by at least this margin is answered without the model. Unless given, a "
                             "run with a model uses the gate learned for its KG (`kgqa learn-gate`, mode gated) "
                             "or, without one, keeps the gate closed (0: the model's checks only)")
    direct_weight: float = Field(
        0.0, ge=0.0, description="with a model (every mode that observes): one one-token call per question asks "
        "whether its answer is a fact stored directly about the topic; direct_weight × (the model's log-odds of yes − "
        "direct_center) is added to the score of every one-relation path. 0 (default): no call. A model's log-odds "
        "have their own scale, so both are chosen per model on train questions: `kgagents bench kgqa-scorer "
        "--with-model` prints them as --set options")
    direct_center: float = Field(0.0, description="the log-odds at which the model's answer to the direct "
                                 "question moves no path (see direct_weight)")
    relation_weight: float = Field(
        0.0, ge=0.0, description="with a model (every mode that observes): after the first observation, one "
        "one-token call per relation name among the best relation_paths paths asks whether the question asks about "
        "it; relation_weight × the sum over a path's distinct relations of (the model's log-odds of yes − "
        "relation_center) is added to those paths' scores, which are ranked again. 0: no call. Chosen per model "
        "on train questions (`kgagents bench kgqa-scorer --with-model --check relations`); a model with chosen "
        "values (MODEL_DEFAULTS) uses them unless this is given, any other model 0")
    relation_center: float = Field(0.0, description="the log-odds at which a relation neither helps nor costs a "
                                   "path (see relation_weight): above it, each more relation must be asked about")
    relation_paths: int = Field(15, ge=1, description="the best observed paths whose relations the model is asked "
                                "about and which it re-ranks (see relation_weight)")
    chain_weight: float = Field(
        0.0, ge=0.0, description="with a model (every mode that observes): one call per question asks the model to "
        "write the question's relations in order, shown how questions map to chains by examples written for the "
        "KG's own path types (kgqa/chains.py; no labelled question); an observed path that takes exactly those "
        "relations, in either direction, gains chain_weight (the chain is walked on its own when the observation "
        "did not reach it). 0: no call")
    chain_collapsed: float = Field(
        0.5, ge=0.0, le=1.0, description="share of chain_weight a path gains when it takes the written relations "
        "with one of them repeated — there and back, to things that share a value with the topic (\"the films that "
        "share directors with X\" names the relation once) — rather than exactly as written")
    chain_partial: float = Field(
        0.75, ge=0.0, le=1.0, description="share of chain_weight a path gains, times the share of its relations it "
        "has in common with the written chain in the same order, when it takes neither the written relations nor "
        "them collapsed (the model drops or misnames one relation of a longer chain)")
    parse_weight: float = Field(
        0.2, ge=0.0, description="no model needed: a question worded as nested noun phrases (\"the place of birth of "
        "X's father\") is read as its relation chain (kgqa/composition.py: split at 'of' and 's, each mention named "
        "by the closest relation label); observed paths gain parse_weight as they gain chain_weight from the "
        "model's chain (the same shares, chain_collapsed and chain_partial), and the chain is walked where the "
        "observation missed it. Not where the path memory voted. 0: off")
    parse_clauses: bool = Field(
        True, description="the parse also reads a question whose relations are named by clauses around its topic "
        "(\"who acted in the films directed by the director of X\": from the topic outwards, then the words after "
        "it; kgqa/composition.py clause_pieces), where it is not a nested noun phrase")
    share_weight: float = Field(
        0.05, ge=0.0, description="no model needed: where a question asks for things that share a value with its "
        "topic (\"the same director as X\", \"co-starred with X\"; kgqa/composition.py), observed paths that take a "
        "relation there and back gain share_weight. Not where the path memory voted. 0: off")
    parse_backward_share: float = Field(
        0.25, ge=0.0, le=1.0, description="share of parse_weight a path gains when it takes a step of the parsed chain "
        "backwards: \"the R of Y\" reads as R from Y (1: direction not read)")
    unnamed_penalty: float = Field(
        0.05, ge=0.0, description="no model needed: score a path loses per relation it takes that no word of the "
        "question names (kgqa/composition.py: each word and word pair names the relation whose label is closest, "
        "and any within unnamed_margin); a longer path otherwise wins by the words its extra relation adds. Not "
        "where the path memory voted. 0: off")
    unnamed_margin: float = Field(0.0, ge=0.0, description="a word names every relation whose label is within "
                                  "this cosine of the closest one (see unnamed_penalty); 0, not the train search's "
                                  "0.06 (a tenth of a point better): at 0.06 a small KG's every relation is named")
    chain_shots: int = Field(24, ge=0, description="one-relation path types (most frequent first) the chain "
                             "prompt shows an example question for (see chain_weight)")
    chain_longer: int = Field(12, ge=0, description="longer path types the chain prompt shows an example question "
                              "for, shared evenly among the lengths 2 to depth (see chain_weight)")
    relation_with_memory: bool = Field(
        True, description="the model's checks (relation, chain) also re-rank the paths of questions the path "
        "memory voted on; False: where the memory votes, its ranking stands and the model is not asked (the memory "
        "has seen such questions answered, the model has not)")
    prepared_path_length: int = Field(
        2, ge=0, le=2, description="`kgqa prepare` embeds the path texts of every relation path type of up to this "
        "many relations in the KG (stored in the graph), so a run does not embed them question by question; 0: "
        "none (three-relation types are too many to embed ahead: ~61,000 on CoDEx-M)")
    prepared_path_texts: int = Field(20_000, ge=0, description="at most this many path texts embedded by `kgqa "
                                     "prepare` (the path types along which most walks run first)")
    answer_cap: int = Field(1000, ge=1, description="largest answer set returned (ranked by support)")
    reflect_k: int = Field(15, ge=1, description="K: paths the reflection keeps in memory per iteration")
    max_iterations: int = Field(8, ge=1, description="observe → act → reflect rounds before answering from memory")
    temperature: float = Field(0.4, ge=0.0, description="sampling temperature of every LLM call")
    max_tokens: int = Field(500, ge=1, description="completion-token cap of every LLM call")
    paths_shown: int = Field(12, ge=1, description="observed paths shown in the action prompt (best first)")
    choice_paths: int = Field(5, ge=2, le=26, description="mode 'gated': the best observed paths with different "
                              "end sets the model re-ranks (the EA aligner's five candidates)")
    ranking: Ranking = Field("yes_no", description="mode 'gated': how the model grades the paths it re-ranks — "
                             "'yes_no': its log-odds of yes to one question per path ('does this chain answer "
                             "exactly what the question asks?'); 'options': the paths as lettered options, entities "
                             "first, asked in both orders, each letter's log-probability")
    verify_weight: float = Field(0.3, ge=0.0, description="mode 'gated': weight of the model's grade (see ranking) "
                                 "added to a path's score when re-ranking")
    ends_shown: int = Field(3, ge=1, description="end entities shown per path in prompts")
    seed: int = Field(7, description="random reflection ablation: seed of the sample")

    def model_checks(self) -> str:
        """The model checks a run makes, as ``key=value`` text (``''``: none): what a learned LLM gate must have
        been learned with to apply (the checks move the paths the gate's confidence is read from)."""
        on = [("direct", self.direct_weight, self.direct_center), ("relation", self.relation_weight,
                                                                     self.relation_center)]
        checks = [f"{name}_weight={w},{name}_center={c}" for name, w, c in on if w > 0]
        if self.chain_weight > 0:
            checks.append(f"chain_weight={self.chain_weight},chain_collapsed={self.chain_collapsed},"
                          f"chain_partial={self.chain_partial},"
                          f"chain_shots={self.chain_shots},chain_longer={self.chain_longer}")
        return ",".join(checks)


def with_model_defaults(settings: KGQASettings, model: str | None) -> tuple[KGQASettings, dict[str, Any]]:
    """``settings`` with ``model``'s own values (:data:`kgagents.llm.models.MODEL_SETTINGS`) where they were not
    set explicitly, and the values applied — :func:`kgagents.settings.resolve` with the settings as arguments."""
    resolved = resolve("kgqa", arguments=settings, model=model, env={})
    applied = {k: getattr(resolved.settings, k) for k, source in resolved.sources.items() if source.startswith(MODEL)}
    return resolved.settings, applied


#: the settings by stage (``kgagents config show kgqa``, the config template)
STAGES: dict[str, tuple[str, ...]] = {
    "run": ("mode", "seed", "temperature", "max_tokens"),
    "observation": ("depth", "top_n", "top_percent", "min_expand", "max_frontier", "expand_budget", "ends_kept",
                    "type_sample"),
    "scoring": ("length_penalty", "length_words", "type_weight", "e5_weight", "prior_weight", "parse_weight",
                "parse_clauses", "parse_backward_share", "share_weight", "unnamed_penalty", "unnamed_margin"),
    "path_memory": ("memory", "memory_k", "memory_pool", "memory_min_similarity", "memory_temperature",
                    "memory_calibration", "memory_calibration_sample", "memory_order_temperature", "memory_focus"),
    "model_checks": ("direct_weight", "direct_center", "relation_weight", "relation_center", "relation_paths",
                     "chain_weight", "chain_collapsed", "chain_partial", "chain_shots", "chain_longer",
                     "relation_with_memory"),
    "gate": ("confident", "choice_paths", "ranking", "verify_weight"),
    "reflection": ("reflect_k", "max_iterations", "paths_shown", "ends_shown"),
    "answer": ("answer_cap",),
    "prepare": ("prepared_path_length", "prepared_path_texts"),
}

#: where a default came from: the results file (under benchmarks/results/) of the run that chose it; the run
#: records the settings it ran with, and a test checks they are today's defaults
CHOSEN_BY: dict[str, str] = {
    "e5_weight": "kgqa/scorer/train.json",
    "length_penalty": "kgqa/scorer/train.json",
    "length_words": "kgqa/scorer/train.json",
    "type_weight": "kgqa/scorer/train.json",
    "parse_weight": "kgqa/scorer/parse_train.json",
    "share_weight": "kgqa/scorer/parse_train.json",
    "parse_backward_share": "kgqa/scorer/parse_train.json",
    "unnamed_penalty": "kgqa/scorer/parse_train.json",
    # unnamed_margin: not the search's choice (0.06 by a tenth of a point); kept at 0, see docs/kgqa.md
}


class BootstrapSettings(AgentSettings):
    """What ``kgagents kgqa bootstrap`` depends on (stored on its ``(:Run)`` node; the ``bootstrap`` job of
    :mod:`kgagents.settings`); see :mod:`kgagents.agent.kgqa.bootstrap`."""

    #: the settings by stage (the module's STAGES are KGQASettings')
    STAGES: ClassVar[dict[str, tuple[str, ...]]] = {
        "run": ("mode", "seed"),
        "sampling": ("topics", "depth", "branch", "max_frontier", "max_answers", "min_support", "max_paths"),
        "questions": ("paraphrase_paths", "paraphrases"),
        "scorer_calibration": ("calibration_questions",),
        "memory_writes": ("batch",),
    }

    mode: Literal["full", "no_llm"] = Field(
        "full", description="full: with a chat model, natural paraphrases beside the templates; no_llm: templates only")

    # -- sampling the KG's paths
    topics: int = Field(300, ge=1, description="topic entities sampled (seeded) to find the KG's path types")
    depth: int = Field(3, ge=1, le=4, description="longest relation path a question is written for")
    branch: int = Field(3, ge=1, description="paths each sampled topic walks on at each level (seeded)")
    max_frontier: int = Field(50, ge=1, description="an end set larger than this is not walked on (a path "
                              "through it would mostly end in more answers than max_answers)")
    max_answers: int = Field(50, ge=1, description="a path instance with more answers than this gets no question")
    min_support: int = Field(2, ge=1, description="a path type needs this many sampled topics to get questions")
    max_paths: int = Field(400, ge=1, description="path types questions are written for, most supported first")
    # -- writing questions
    paraphrase_paths: int = Field(40, ge=0, description="with a chat model: path types (seeded sample, weighted by "
                                  "support) the model writes natural questions for; 0: templates only")
    paraphrases: int = Field(3, ge=1, le=8, description="questions the model writes per path type")
    # -- the zero-shot scorer's length penalty, learned on held-out bootstrap questions
    calibration_questions: int = Field(
        1000, ge=0, description="held-out template questions (about topics the memory's examples are not about, "
        "one per path type in turn) the scorer's length_penalty is chosen on (kgqa/scorer_calibration.py); runs "
        "that use this memory take it unless length_penalty is given. 0: none learned (the default penalty). With "
        "300, bootstrap seeds 1–4 and 7 chose 0.02 or 0.03 on MetaQA; with 1,000 each kept 0.02")
    # -- writing the memory
    batch: int = Field(500, ge=1, description="examples written per transaction (staged until the last one)")
    seed: int = Field(7, description="seed of every sample")
