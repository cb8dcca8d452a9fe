"""Agent-OM hyper-parameters, with the paper's defaults, and the switches for its ablations."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from kgagents.settings import NO_LLM, AgentSettings

Channel = Literal["syntactic", "lexical", "semantic"]
#: the LLM only where it pays: no LLM-written channel texts, and the validator asked only about candidates whose
#: best channel cosine lies in the uncertain band [threshold, accept_similarity)
GATED = "gated"
ALL_CHANNELS: tuple[Channel, ...] = ("syntactic", "lexical", "semantic")


class MatchSettings(AgentSettings):
    """Everything a matching run depends on; stored on the (:Run) node so results are reproducible. Any field can
    also come from ``--set``, a config file or the environment (``KGAGENTS_MATCH_THRESHOLD=0.8``; see
    :mod:`kgagents.settings`); an unknown field is an error.

    ``mode``: ``full`` runs Agent-OM's LLM steps; ``no_llm`` is the offline ablation (syntactic channel +
    label/synonym embeddings as the lexical channel, no semantic channel, no validator); ``gated`` retrieves as
    ``no_llm`` does, accepts candidates with cosine ≥ ``accept_similarity`` unasked and asks the validator only about
    those between ``threshold`` (default there: ``structural_threshold``) and ``accept_similarity``."""

    mode: Literal["full", "gated", "no_llm"] = Field(
        "full", description="full: Agent-OM's LLM steps; gated: the validator only for candidates in the uncertain "
        "band; no_llm: the offline ablation (no chat model is called)")
    threshold: float = Field(0.90, ge=-1.0, le=1.0, description="cosine similarity cut-off T per channel")
    top_k: int = Field(3, ge=1, description="candidates kept per channel")
    channels: tuple[Channel, ...] = Field(ALL_CHANNELS, description="retrieval channels: syntactic (names), lexical "
                                          "(labels, synonyms, definitions), semantic (LLM-written descriptions)")
    validator: bool = Field(True, description="the LLM validates each candidate pair before it is kept")
    merger: bool = Field(True, description="merge the source→target and target→source searches (bidirectional)")
    lexical_prematch: bool = Field(True, description="accept exact label/synonym matches before any LLM call")
    one_word_stems: bool = Field(
        False, description="the pre-match's stem key also for a name of one stem: off, one root's derivations "
        "('Presentation' / 'Presenter', 'Organization' / 'Organizator') are no match by their stem alone; names "
        "of two or more words still match on stems ('intestine mucosa' = 'Intestinal mucosa')")
    structural: bool = Field(
        True,
        description="after merging, accept mutual-best pairs with cosine ≥ structural_threshold whose "
        "structural neighbours (SCO, part-of restrictions, SPO) are already matched (LogMap-style propagation); "
        "with an LLM they must also pass the validator",
    )
    structural_threshold: float = Field(0.80, ge=-1.0, le=1.0, description="the structural propagation's cosine "
                                        "floor; also the lower end of gated mode's uncertain band")
    contrasts: bool = Field(
        True, description="the structural propagation skips a pair whose closest names differ on both sides by a "
        "word its ontology uses to tell names apart ('ventral auricular vein' / 'Posterior auricular vein'): "
        "words learned from each ontology's own names, seen with at least contrast_min_support shared word bags")
    contrast_min_support: int = Field(5, ge=1, description="how many word bags two words must share (each bag "
                                      "named once with each word) to count as contrasting")
    domain_range: bool = Field(
        True, description="structural neighbours include a property's domain and range classes (and a class's "
        "properties), so matched classes support their properties' pairs and the other way round")
    structural_rounds_until_stable: bool = Field(
        True, description="repeat the propagation while it adds pairs (a pair it accepts supports others); False: "
        "one round")
    containment: bool = Field(
        True, description="last, among entities nothing else matched: accept 1:1 pairs whose label/synonym word "
        "bags are equal or differ by one extra word ('Regular author' / 'Author'); validated only with "
        "validate_lexical_rules")
    variants: bool = Field(
        True, description="after the structural propagation, among entities still unmatched: 1:1 pairs whose word "
        "bags are equal up to spelling variants (a compound as one word, hyphenated or spaced: 'Fore-Brain', 'Fore "
        "limb'; a word's initial fused with a "
        "number: 'thoracic vertebra 1' = 'T1 vertebra'); validated only with validate_lexical_rules")
    typos: bool = Field(
        True, description="after the spelling variants, among entities still unmatched: 1:1 pairs whose word bags "
        "are equal but for one word of 6 or more letters one typo apart (a letter inserted, dropped, changed or two "
        "neighbours swapped: 'mammillary body' = 'mamillary body'); validated only with validate_lexical_rules")
    acronyms: bool = Field(
        True, description="after the typos, among entities still unmatched: 1:1 pairs where one name holds an "
        "acronym in capitals that the other spells out, their other words equal ('Chair_PC' / "
        "'ProgramCommitteeChair'); validated only with validate_lexical_rules")
    synonyms: bool = Field(
        True, description="after the acronyms, among entities still unmatched: 1:1 pairs whose names are "
        "general-English synonyms — WordNet 3.0 nouns whose first (most frequent) senses are one synset, as a whole "
        "name or one word of it ('Windshield' / 'Windscreen', 'automobile maker' / 'automobile manufacturer'); "
        "validated only with validate_lexical_rules (see kgagents.agent.matching.synonyms)")
    validate_lexical_rules: bool = Field(
        False, description="with an LLM and the validator: the pairs of the deterministic lexical rules (variants, "
        "typos, acronyms, WordNet synonyms, substitutions, containment) are validated too; off: accepted as without "
        "an LLM (the names a model lists, llm_synonyms, are validated either way); off: it pays with the local "
        "model (bench om-rules --llm)")
    llm_synonyms: bool = Field(
        True, description="with an LLM, after the synonyms: the model lists other names for each entity still "
        "unmatched; 1:1 pairs where one side's listed name is a name of the other, then validated (no_llm: "
        "nothing; see kgagents.agent.matching.synonyms); on: it pays with the local model (bench om-rules --llm)")
    llm_synonyms_max_asked: int = Field(
        300, ge=0, description="llm_synonyms asks the model about at most this many entities in one run (one call "
        "each; an entity this model was asked about before is free): with more to ask, the step is skipped and the "
        "run says so (llm_synonyms_skipped) rather than run for hours — raise it to ask them all")
    substitution: bool = Field(
        True, description="lexical propagation, after the structural one: word substitutions the input teaches "
        "(seen at least substitution_min_support times between matched pairs' names or between two names of one "
        "entity, e.g. 'spleen' → 'splenic') make 1:1 pairs among the entities still unmatched; validated when "
        "there is an LLM")
    substitution_min_support: int = Field(2, ge=1, description="how often a word substitution must be seen")
    phrase_substitution: bool = Field(
        False, description="with substitution: also phrase substitutions the matched pairs teach (what is left of "
        "two matched names' differing words once the learned word swaps are taken out: 'serosa' → 'serosal "
        "surface'), seen substitution_min_support times; off: it pays on no task it was not designed on (bench "
        "om-rules)")
    background: bool = Field(
        True, description="with background files given (match --background): pairs the files relate, directly or "
        "through a mediator, are matched 1:1 among the entities the lexical pre-match left, and support the other "
        "stages' pairs (see kgagents.agent.matching.background)")
    background_names: bool = Field(
        True, description="with background files: the names a file gives the classes it ties (a bridge's labels, "
        "e.g. Uberon's label of an MA class) are more names of those classes for every lexical rule")
    background_hierarchy: bool = Field(
        True, description="background paths may also go through two mediators one below the other (the weakest "
        "background evidence), where a background file states the mediators' hierarchy")
    background_veto: bool = Field(
        True, description="with background files: drop a pair of the later stages (retrieval, structural, lexical "
        "rules) whose entities the background ties to mediators of one vocabulary but relates by no path — it "
        "places them apart (see kgagents.agent.matching.agreement)")
    background_stage_check: bool = Field(
        True, description="with background files: a later stage whose pairs the background judges disagree with "
        "it significantly more often than not (one-sided binomial test, 5 %) is not trusted on this run: its pairs "
        "the background does not relate are dropped too")
    background_duplicates: bool = Field(
        True, description="with background files: also keep a pair sharing the pre-match's strictest label/synonym "
        "key with an entity the pre-match or the background matched and the background ties, where the other entity "
        "is left unmatched and tied to nothing although the background ties its ontology (a near-duplicate the "
        "background maps only once: 'talus {astragalus}' = 'Talus' and 'Astragalus'); one-to-many there")
    background_corroboration: bool = Field(
        True, description="with background files: keep a pair the background's veto or stage check would drop "
        "where at least two pairs of its structural neighbours are matched among the pairs kept (evidence beyond "
        "the one neighbour pair the structural propagation needs; see kgagents.agent.matching.agreement)")
    repair: bool = Field(
        True, description="last: drop pairs that, read as equivalences, make a class unsatisfiable (comparable "
        "classes mapped to disjoint ones) or collapse a hierarchy (crossing an already kept pair); pairs are "
        "kept most trusted first (lexical pre-match, merged, structural, substituted, contained)")
    property_ends: bool = Field(
        True, description="after the repair: drop a property pair (the pre-match's too) where the alignment's "
        "class pairs map one property's domain (range) classes only to classes unrelated to the other's — not the "
        "same, not above, not below ('hasPhone' of a Person / 'hasPhone' of a ContactInformation)")
    multilingual: Literal["auto", "on", "off"] = Field(
        "auto", description="the channels' embedding model: 'auto' uses the shipped multilingual-e5-small when most "
        "labels of the two ontologies carry different language tags (a German and an English ontology), else the "
        "configured model (KGAGENTS_EMBED_*); 'on' always the multilingual one; 'off' always the configured one")
    skip_shared: bool = Field(
        True, description="entities both ontologies declare (the same URI, e.g. an imported vocabulary's classes) "
        "are not matched: an entity paired with itself is no alignment")
    containment_no_subclasses: bool = Field(
        False, description="containment skips a pair where the entity with fewer words has subclasses: a general "
        "concept with kinds of its own, of which the other is likely one ('Squamous epithelium' / 'stomach squamous "
        "epithelium'). Off by default: it helped anatomy, where it was designed (+0.003 F1), but cost held-out "
        "conference 0.025 macro F1 ('Author', which has subclasses, is the reference's match for 'Regular author')")
    containment_same_head: bool = Field(
        False, description="containment skips a class pair where the word one name adds to the other is its last, "
        "its head noun ('Computer' / 'Computer cart', 'Refrigerant' / 'Refrigerant valve': a cart, a valve), keeping "
        "an added modifier ('Author' / 'Regular author')")
    lexical_tiebreak: bool = Field(
        True, description="a lexical rule (variants, typos, acronyms, synonyms, substitution, containment) that finds "
        "several candidates for an entity keeps the ones with a matched structural neighbour pair, and matches "
        "where that leaves one ('upper lip': 'External upper lip', not 'Mucosa of the upper lip', when 'lip' is "
        "matched to the first one's parent); off: such an entity stays unmatched. On: it paid on the tasks it was "
        "not designed on (bench om-rules: conference halves, materials)")
    context: str | None = Field(
        None, description="domain context given to the LLM steps; None: derived from the two ontologies' own "
        "metadata (title, description, main concepts; see kgagents.agent.matching.context)")
    one_to_one: bool = Field(
        True, description="1:1 output (each entity in at most one pair), as OAEI conference and anatomy expect. "
        "False: the one-to-many output also keeps every pair sharing a label/synonym key at either entity's "
        "strictest tier and every retrieved candidate with best channel cosine ≥ many_min_similarity")
    many_min_similarity: float = Field(
        0.95, ge=-1.0, le=1.0, description="the confidence (best channel cosine) a candidate needs to join the "
        "one-to-many output; recorded on the run")
    accept_similarity: float = Field(
        0.90, ge=-1.0, le=1.0, description="gated mode: the upper end of the uncertain band; a candidate at least "
        "this close (best channel cosine) is accepted without the LLM — the no-LLM threshold, so gated mode only "
        "adds what the validator confirms below it")
    validator_min_log_odds: float | None = Field(
        None, description="the validator confirms a pair when the model's log-odds of 'yes' (one one-token call, "
        "read from its log-probabilities) reach this value — learned on train pairs by `bench om-gate --graded`; "
        "None: the model's yes/no text answer with a reason")
    batch_size: int = Field(64, ge=1, description="entities per checkpointed step")
    include_properties: bool = Field(True, description="match object and data properties as well as classes")

    @model_validator(mode="after")
    def _no_llm_ablation(self) -> MatchSettings:
        if self.mode in (NO_LLM, GATED):
            self.channels = tuple(c for c in self.channels if c != "semantic") or ("syntactic", "lexical")
        if self.mode == NO_LLM:
            self.validator = False
        if self.mode == GATED and "threshold" not in self.model_fields_set:
            self.threshold = self.structural_threshold  # the band's lower end
        if not self.channels:
            raise ValueError("at least one channel must be enabled")
        return self


#: the settings by stage (``kgagents config show match``, the config template)
STAGES: dict[str, tuple[str, ...]] = {
    "run": ("mode", "context", "batch_size"),
    "retrieval": ("threshold", "top_k", "channels", "multilingual", "lexical_prematch", "one_word_stems",
                  "skip_shared", "include_properties"),
    "background_knowledge": ("background", "background_names", "background_hierarchy", "background_veto",
                             "background_stage_check", "background_duplicates", "background_corroboration"),
    "validation": ("validator", "merger", "accept_similarity", "validator_min_log_odds", "validate_lexical_rules"),
    "propagation": ("structural", "structural_threshold", "contrasts", "contrast_min_support", "domain_range",
                    "structural_rounds_until_stable", "substitution", "substitution_min_support",
                    "phrase_substitution"),
    "lexical_rules": ("containment", "containment_no_subclasses", "containment_same_head", "variants", "typos",
                      "acronyms", "synonyms", "llm_synonyms", "llm_synonyms_max_asked",
                      "lexical_tiebreak"),
    "output": ("repair", "property_ends", "one_to_one", "many_min_similarity"),
}

#: where a default came from: the results file (under benchmarks/results/) of the run that chose it; the run
#: records the settings it ran with, and a test checks they are today's defaults
CHOSEN_BY: dict[str, str] = {
    "contrast_min_support": "om/anatomy/no_llm.json",
    "containment_no_subclasses": "om/conference/no_llm.json",
    "one_word_stems": "om/anatomy/no_llm.json",
    "property_ends": "om/conference/no_llm.json",
    "lexical_tiebreak": "om/rules/rules_no_llm_seed39_only-lexical-tiebreak.json",
    "phrase_substitution": "om/rules/rules_no_llm_seed39_only-phrase-substitution.json",
    "containment_same_head": "om/rules/rules_no_llm_seed39_only-containment-same-head.json",
    "llm_synonyms": "om/rules/rules_gated_qwen2.5-coder-1.5b_seed39_mode-gated-only-llm-synonyms.json",
    "validate_lexical_rules":
        "om/rules/rules_gated_qwen2.5-coder-1.5b_seed39_mode-gated-only-validate-lexical-rules.json",
}
