"""Settings of entity alignment: the retrieval pipeline (:class:`RetrievalSettings`) and the EA-Agent on top of it
(:class:`EASettings`). Both are stored on the run's ``(:Run)`` node, so a result can be reproduced.

Retrieval's fields are grouped by the stage that reads them (``stage`` in each field's schema): ``names``,
``structure``, ``fusion``, ``bootstrap``, ``one_to_one`` (the assignment), ``weight_tuning`` (how the run chooses
its own fusion weights when it has seed links or can make pseudo-seeds) and ``output``. Both are resolved like
every job's settings (:mod:`kgagents.settings`, jobs ``retrieval`` and ``align``: ``--set``, ``--config``, the
environment as in ``KGAGENTS_RETRIEVAL_W_STRUCTURE=1.5``). Where a default came from is the job's defaults table
(docs/alignment.md), not these descriptions.

No default reads gold links: ``candidate_space`` ranks every entity of the target KG and ``use_gold`` is off. The
benchmark protocol (rank only the test targets, score the agent against the test links) is asked for explicitly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kgagents.agent.alignment.planner import CLOSE_MARGIN
from kgagents.agent.base import AgentSettings

CandidateSpace = Literal["test", "all"]
Tuning = Literal["auto", "off"]
Mode = Literal["full", "rule_planner", "no_planning", "llm_only", "no_selectors", "gated", "no_llm"]
#: the pair whose supervised benchmark run (train links as seeds, tuned on a held-out third) chose the defaults of
#: :data:`TUNED_FIELDS`; a 0-seed benchmark row of that pair starts from another pair's values instead
DEFAULTS_DATASET = "srprs_en_fr"
#: the retrieval settings a supervised run tunes (the rest are not tuned)
TUNED_FIELDS = ("w_name", "w_multilingual", "w_exact", "w_structure", "w_attributes", "bootstrap_share",
                "bootstrap_rounds", "taken_penalty")
#: candidates the aligner and reflector are shown by default (see ``EASettings.prompt_candidates``)
PROMPT_CANDIDATES = 5


def _stage(name: str) -> dict[str, Any]:
    return {"stage": name}


class RetrievalSettings(AgentSettings):
    """What one retrieval run depends on (no model is called: ``mode`` is always ``no_llm``); the ``retrieval``
    job of :mod:`kgagents.settings`."""

    mode: Literal["no_llm"] = Field("no_llm", description="retrieval calls no model: always no_llm")

    # -- names ------------------------------------------------------------------------------------
    vector_property: str = Field(
        "name_vec", description="Entity property holding the English-name vector", json_schema_extra=_stage("names"))
    multilingual_vector_property: str = Field(
        "name_ml", description="Entity property holding the multilingual name-variant vector (mean of every name)",
        json_schema_extra=_stage("names"))
    name_top_n: int = Field(
        100, ge=1, description="targets proposed per source by the weighted name cosine",
        json_schema_extra=_stage("names"))

    # -- structure --------------------------------------------------------------------------------
    structure_top_n: int = Field(
        60, ge=0, description="targets proposed per source by seed propagation over the relationships (0: none)",
        json_schema_extra=_stage("structure"))
    outside_anchors: bool = Field(
        True, description="also pair the entities a task does not rank (the source KG's outside its sources, the "
        "target KG's outside its targets) by the pseudo-seed rule, as extra structural anchors: never candidates",
        json_schema_extra=_stage("structure"))
    outside_fused: bool = Field(
        True, description="with outside_anchors: once structure is known, the fused score's mutual, clear nearest "
        "neighbours count as one more channel of the pseudo-seed rule outside the task",
        json_schema_extra=_stage("structure"))
    outside_name_top_n: int = Field(
        10, ge=1, description="with outside_anchors: targets proposed per outside entity by the weighted name cosine "
        "(anchors need only the nearest few: 10 and 100 find the same anchors on DBP15K ZH-EN, 10 in a third of the "
        "time)", json_schema_extra=_stage("structure"))
    structure_max_degree: int = Field(
        1000, ge=1, description="seed counterparts with more neighbours than this are skipped (hubs say little)",
        json_schema_extra=_stage("structure"))

    # -- fusion -----------------------------------------------------------------------------------
    w_name: float = Field(1.0, ge=0.0, description="weight of the English-name cosine (in [-1, 1])",
                          json_schema_extra=_stage("fusion"))
    w_multilingual: float = Field(
        4.0, ge=0.0, description="weight of the multilingual name-variant cosine (in [-1, 1]; 0 when not embedded)",
        json_schema_extra=_stage("fusion"))
    w_exact: float = Field(0.5, ge=0.0, description="weight of exact normalised-name equality (0/1)",
                           json_schema_extra=_stage("fusion"))
    w_structure: float = Field(1.5, ge=0.0, description="weight of the saturated seed-neighbour score w/(1+w)",
                               json_schema_extra=_stage("fusion"))
    w_attributes: float = Field(0.4, ge=0.0, description="weight of the attribute-name Jaccard",
                                json_schema_extra=_stage("fusion"))

    # -- bootstrap --------------------------------------------------------------------------------
    bootstrap_rounds: int = Field(
        2, ge=0, description="rounds in which confident assigned pairs become extra structural seeds",
        json_schema_extra=_stage("bootstrap"))
    bootstrap_share: float = Field(
        0.7, gt=0.0, le=1.0,
        description="share of the one-to-one assigned pairs (highest fused scores first) that become pseudo-seeds",
        json_schema_extra=_stage("bootstrap"))

    # -- assignment -------------------------------------------------------------------------------
    assignment: bool = Field(
        True, description="global one-to-one assignment over the candidate lists (stable matching): the assigned "
        "target becomes rank 1; the rest follows the fused order, with taken_penalty",
        json_schema_extra=_stage("one_to_one"))
    csls_k: int = Field(
        5, ge=0, description="with the assignment: rescale scores by CSLS over each source's and target's k best "
        "before assigning (0: off)", json_schema_extra=_stage("one_to_one"))
    taken_penalty: float = Field(
        2.0, ge=0.0, description="with the assignment: below the assigned target, a target assigned to another source "
        "is ranked by its score minus this times how much more that source scored it (free targets keep theirs; 0: "
        "fused order)", json_schema_extra=_stage("one_to_one"))

    # -- tuning -----------------------------------------------------------------------------------
    tuning: Tuning = Field(
        "auto", description="'auto': choose the fusion weights on held-out seed links when there are at least "
        "min_seed_links, else on held-out pseudo-seeds when there are at least min_pseudo_seeds, else keep these "
        "settings; 'off': always keep these settings", json_schema_extra=_stage("weight_tuning"))
    min_seed_links: int = Field(
        300, ge=3, description="seed links needed to tune on seeds and calibrate each pair's confidence (a share "
        "is held out to validate)",
        json_schema_extra=_stage("weight_tuning"))
    min_pseudo_seeds: int = Field(
        300, ge=3, description="pseudo-seeds needed to tune on them; with fewer they still feed the structure signal",
        json_schema_extra=_stage("weight_tuning"))
    pseudo_seed_channels: int = Field(
        2, ge=1, description="a pair is a pseudo-seed when it is the mutual nearest neighbour in at least this many "
        "channels (English name, multilingual name, exact name, structure from given seeds) and no channel's mutual "
        "nearest neighbour of either entity disagrees", json_schema_extra=_stage("weight_tuning"))
    pseudo_seed_margin: float = Field(
        0.02, ge=0.0, description="in a cosine channel, the best score must lead the runner-up of both the source's "
        "row and the target's column by at least this to count", json_schema_extra=_stage("weight_tuning"))
    pseudo_seed_share_tuning: bool = Field(
        True, description="without enough seed links: choose bootstrap_share on held-out pseudo-seeds, by how well "
        "the structure channel alone ranks them with that share's pseudo-seeds",
        json_schema_extra=_stage("weight_tuning"))
    pseudo_seed_weights: bool = Field(
        False, description="without enough seed links: also choose the fusion weights on held-out pseudo-seeds (off: "
        "keep these; pseudo-seeds are pairs the name channels agree on, so leaning on names always looks better on "
        "them)", json_schema_extra=_stage("weight_tuning"))
    validation_share: float = Field(
        1 / 3, gt=0.0, lt=1.0, description="share of the seed links (or pseudo-seeds) held out to validate the tuning",
        json_schema_extra=_stage("weight_tuning"))
    tuning_tolerance: float = Field(
        0.002, ge=0.0, description="weights whose validation Hits@1 is within this of the best count as equally good; "
        "of those, the ones closest to these settings' weights are kept (a validation set that cannot tell "
        "weights apart leaves them as they are)", json_schema_extra=_stage("weight_tuning"))
    tuning_seed: int = Field(0, description="seed of the held-out split", json_schema_extra=_stage("weight_tuning"))

    # -- output -----------------------------------------------------------------------------------
    top_k: int = Field(10, ge=1, description="candidates stored per source", json_schema_extra=_stage("output"))
    candidate_space: CandidateSpace = Field(
        "all", description="targets ranked: 'all' = every entity of the target KG not taken by a seed link; 'test' "
        "= only the targets of a loaded pair's test gold links (the DBP15K benchmark protocol; reads gold links)",
        json_schema_extra=_stage("output"))

    def weights(self) -> dict[str, float]:
        """The fusion weights by signal name."""
        return {"name": self.w_name, "multilingual": self.w_multilingual, "exact": self.w_exact,
                "structure": self.w_structure, "attributes": self.w_attributes}

    def stored(self) -> dict[str, Any]:
        """The values a run node records (``mode`` is the run's own property)."""
        return self.model_dump(exclude={"mode"})


class EASettings(AgentSettings):
    """What one EA-Agent run depends on (stored on its (:Run) node)."""

    mode: Mode = Field(
        "full", description="full EA-Agent (planner, selectors, aligner, reflector); 'gated' asks the model only "
        "below the learned margin gate; rule_planner, no_planning, llm_only, no_selectors are ablations; no_llm "
        "keeps retrieval's ranking")
    batch_size: int = Field(50, ge=1, description="source entities per select → record loop")
    attribute_limit: int = Field(5, ge=0, description="attributes kept per entity by the attribute selector")
    relation_limit: int = Field(5, ge=0, description="triples kept per entity by the relation selector")
    close_margin: float = Field(CLOSE_MARGIN, description="top-1 − top-2 below this counts as close")
    prompt_candidates: int = Field(
        PROMPT_CANDIDATES, ge=1,
        description="candidates (best retrieval scores) the aligner and reflector see and choose from; the "
        "rest stay in the ranking after the agent's choice")
    use_gold: bool = Field(
        False, description="read a loaded pair's test gold links for the reward and Hits@1 (never for decisions); "
        "a benchmark protocol, off unless asked for")
    gated_triples: int = Field(
        3, ge=0, description="mode 'gated': relation triples kept per entity for the aligner")
    gate_margin: float | None = Field(
        None, description="mode 'gated': sources whose retrieval margin (rank-1 score minus the best other score) is "
        "at least this keep retrieval's rank 1 without any LLM call; None sends every source to the model. "
        "Learned on held-out seed links or pseudo-seeds, never on the reported links")


#: the EA-Agent's settings by the stage that reads them (retrieval's stages are in each field's schema); ``run``
#: also holds retrieval's ``mode``
STAGES: dict[str, tuple[str, ...]] = {
    "run": ("mode", "batch_size", "use_gold"),
    "selectors": ("attribute_limit", "relation_limit", "gated_triples"),
    "decision": ("close_margin", "prompt_candidates", "gate_margin"),
}

#: where a default came from: the results file (under benchmarks/results/) of the supervised run of
#: :data:`DEFAULTS_DATASET` that chose retrieval's tuned values (train links only: two thirds as seeds, a third held
#: out); the run records the settings it chose, and a test checks they are today's defaults
CHOSEN_BY: dict[str, str] = {name: f"ea/{DEFAULTS_DATASET}/retrieval_seeds-train.json" for name in TUNED_FIELDS}
