"""Settings of the extraction agent."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgagents.settings import AgentSettings


class ExtractionSettings(AgentSettings):
    """The feedback ablation switch, the model's budget per document, and grounding.

    ``mode='no_llm'`` extracts nothing: given ``(subject, relation, object)`` triples are fed through the same
    tools (entities typed by the relations they take part in), which shows what the ontology accepts and why it
    refuses the rest — the documented offline mode."""

    mode: Literal["full", "no_llm"] = Field(
        "full", description="full: the model extracts through the tools; no_llm: given triples are fed through the "
        "same tools (nothing is extracted from text)")
    feedback: bool = Field(True, description="show the model the tools' structured feedback and one concrete repair "
                                             "step (off: the seed's ablation, only 'rejected')")
    max_entities: int = Field(16, ge=1, description="entities the model may list per document")
    max_facts: int = Field(16, ge=1, description="facts the model may state per document")
    max_repairs: int = Field(4, ge=0, description="repair turns per document (one rejected fact each)")
    relation_repair: bool = Field(
        True, description="a fact refused for its subject's or object's class is repaired with the relation named "
        "after that class (the one the model most likely meant) before the entity is re-typed to the class the "
        "relation needs; off: re-typed, the model's relation kept")
    retype_objects: bool = Field(
        True, description="a fact refused because its object's class is outside the relation's range (and no swap "
        "or relation repair fits) is repaired by re-typing the object to the class the relation needs; off: the fact "
        "is dropped without a repair turn")
    require_in_text: bool = Field(
        False, description="an entity, or a fact whose subject or object, shares no word with the text (5-letter "
        "stems) is left out: a name the model copied from a solved example, a class name or a placeholder")
    max_relations: int = Field(80, ge=1, description="relations shown (those sharing words with the text first)")
    check_min_log_odds: float | None = Field(
        None, description="each fact the model states is checked with one one-token call ('does the text state this "
        "fact?') and written only when the model's log-odds of yes reach this; None: no check. A model's log-odds "
        "have their own scale: learned per model on train sentences (`kgagents bench text2kgbench-check`)")
    propose_min_log_odds: float | None = Field(
        None, description="also propose each fact whose relation's signature fits two of the text's typed entities "
        "(one one-token check each), written when the log-odds of yes reach this; None: no proposals. Learned with "
        "check_min_log_odds")
    max_proposals: int = Field(60, ge=0, description="proposals checked per document (offered relations first)")
    ground_kg: str | None = Field(None, description="reference KG (loaded :Entity nodes) to ground instances in")
    ground_min_score: float = Field(0.9, ge=0, le=1, description="lowest label similarity that grounds")


#: the extraction check's two floors: the CLI's short name (``--check-floor``, ``--propose-floor``, results file
#: names) and the setting each one sets
CHECK_FLOORS = (("check", "check_min_log_odds"), ("propose", "propose_min_log_odds"))


#: the settings by stage (``kgagents config show extract``, the config template)
STAGES: dict[str, tuple[str, ...]] = {
    "run": ("mode", "max_entities", "max_facts", "max_relations"),
    "repair": ("feedback", "max_repairs", "relation_repair", "retype_objects", "require_in_text"),
    "model_checks": ("check_min_log_odds", "propose_min_log_odds", "max_proposals"),
    "grounding": ("ground_kg", "ground_min_score"),
}

#: where a default came from (results files under benchmarks/results/; see kgagents.settings.chosen_by)
CHOSEN_BY: dict[str, str] = {}
