"""The one settings story (kgagents.settings): the layers' order, the places a bad value is reported, config files,
the stage tables and ``kgagents config``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.cli.common import console
from kgagents.errors import AgentSettingsError, InputFileError
from kgagents.llm.models import MODEL_SETTINGS
from kgagents.settings import JOBS, chosen_by, config_template, read_config, resolve, stages

MODEL = next(m for m, jobs in MODEL_SETTINGS.items() if "kgqa" in jobs)
runner = CliRunner()


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_layer_overrides_the_ones_below_it(tmp_path: Path) -> None:
    config = _toml(tmp_path, "[kgqa.observation]\ndepth = 4\n")
    layers = {"arguments": {"depth": 6}, "sets": ["depth=5"], "config": config, "env": {"KGAGENTS_KGQA_DEPTH": "3"},
              "learned": {"depth": 2}}
    expected = [(6, "argument"), (5, "--set"), (4, "config"), (3, "env KGAGENTS_KGQA_DEPTH"), (2, "learned")]
    for drop, (depth, source) in enumerate(expected):
        given = dict(list(layers.items())[drop:])
        given.setdefault("env", {})
        resolved = resolve("kgqa", model=MODEL, **given)  # type: ignore[arg-type]
        assert (resolved.settings.depth, resolved.sources["depth"].split(" (")[0].split(f" {config}")[0]) == (
            depth, source), given
    bare = resolve("kgqa", env={})
    assert bare.settings.depth == 3 and bare.sources["depth"] == "default"


def test_the_models_own_values_apply_below_a_learned_gate_and_only_for_that_model() -> None:
    own = MODEL_SETTINGS[MODEL]["kgqa"]
    key = next(iter(own))
    resolved = resolve("kgqa", model=MODEL, env={})
    assert getattr(resolved.settings, key) == own[key] and resolved.sources[key] == f"model {MODEL}"
    assert resolve("kgqa", model="a-model-nobody-measured", env={}).sources[key] == "default"
    if "confident" in own:  # a gate learned on the user's own data opens what the model's defaults keep closed
        learned = resolve("kgqa", model=MODEL, env={}, learned={"confident": 0.04}, learned_from="kgqa learn-gate")
        assert learned.settings.confident == 0.04 and learned.sources["confident"].startswith("learned")


def test_without_a_chat_model_the_mode_is_no_llm_whatever_the_layers_say() -> None:
    resolved = resolve("kgqa", sets=["mode=gated"], model=MODEL, offline=True, env={})
    assert resolved.settings.mode == "no_llm" and resolved.sources["mode"].startswith("no model")


@pytest.mark.parametrize("given, where", [
    ({"sets": ["treshold=0.8"]}, "--set: no setting 'treshold' (did you mean 'threshold'?)"),
    ({"env": {"KGAGENTS_MATCH_TRESHOLD": "0.8"}}, "KGAGENTS_MATCH_TRESHOLD: no setting 'treshold'"),
    ({"arguments": {"treshold": 0.8}}, "argument: no setting 'treshold'"),
    ({"sets": ["threshold"]}, "expected KEY=VALUE"),
    ({"sets": ["threshold=high"]}, "threshold (from --set)"),
    ({"env": {"KGAGENTS_MATCH_TOP_K": "0"}}, "top_k (from env KGAGENTS_MATCH_TOP_K)"),
])
def test_a_bad_setting_is_one_error_naming_where_it_was_given(given: dict, where: str) -> None:
    with pytest.raises(AgentSettingsError) as raised:
        resolve("match", **given)
    assert where in str(raised.value)


def test_text_values_none_and_lists() -> None:
    resolved = resolve("match", sets=["channels=syntactic,lexical", "context=none"], env={})
    assert resolved.settings.channels == ("syntactic", "lexical") and resolved.settings.context is None


def test_a_config_file_groups_by_stage_in_toml_and_yaml(tmp_path: Path) -> None:
    toml = _toml(tmp_path, "[match.retrieval]\nthreshold = 0.75\n[match]\none_to_one = false\n")
    yaml = tmp_path / "settings.yaml"
    yaml.write_text("match:\n  retrieval:\n    threshold: 0.75\n  one_to_one: false\n", encoding="utf-8")
    for path in (toml, yaml):
        resolved = resolve("match", config=path, env={})
        assert (resolved.settings.threshold, resolved.settings.one_to_one) == (0.75, False)
        assert resolved.sources["threshold"] == f"config {path}"
    with pytest.raises(AgentSettingsError, match=r"\[match\]: no setting 'treshold'"):
        resolve("match", config=_toml(tmp_path, "[match]\ntreshold = 1\n"), env={})


@pytest.mark.parametrize("text, suffix, message", [
    ("[match\nthreshold = 1\n", ".toml", "line 1"),
    ("match: [1, 2\n", ".yaml", "line"),
    ("[matching]\nthreshold = 1\n", ".toml", "no job 'matching'"),
    ("threshold = 1\n", ".ini", "use a .toml, .yaml or .yml file"),
])
def test_a_config_file_that_cannot_be_read_is_one_error_naming_it(tmp_path: Path, text: str, suffix: str,
                                                                  message: str) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError) as raised:
        read_config(path)
    assert str(path) in str(raised.value) and message in str(raised.value)


@pytest.mark.parametrize("name", list(JOBS))
def test_every_setting_says_what_it_does_and_sits_in_one_stage(name: str) -> None:
    spec = JOBS[name]
    fields = spec.settings_type.model_fields
    grouped = [f for names in stages(spec).values() for f in names]
    assert sorted(grouped) == sorted(fields), "a setting is missing from STAGES, or listed twice"
    if "other" not in getattr(spec.module, "STAGES", {}):
        assert "other" not in stages(spec), f"{name}: settings in no stage: {stages(spec).get('other')}"
    undocumented = [f for f, info in fields.items() if not info.description]
    assert not undocumented, f"{name}: settings without a description: {undocumented}"


def test_each_defaults_table_entry_names_a_setting_of_a_job_of_its_module() -> None:
    """Two jobs may share a settings module (and its CHOSEN_BY): each job keeps its own fields' entries, and an entry
    no job of the module has (a typo, a renamed field) is an error, not silently dropped."""
    for module in {spec.module for spec in JOBS.values()}:
        jobs = [spec for spec in JOBS.values() if spec.module is module]
        kept = {key for spec in jobs for key in chosen_by(spec)}
        assert kept == set(getattr(module, "CHOSEN_BY", {})), f"{module.__name__}: CHOSEN_BY names no setting"
        for spec in jobs:
            assert set(chosen_by(spec)) <= set(spec.settings_type.model_fields)


@pytest.mark.parametrize("name", list(JOBS))
@pytest.mark.parametrize("suffix", [".toml", ".yaml"])
def test_the_template_reads_back_as_the_defaults(tmp_path: Path, name: str, suffix: str) -> None:
    path = tmp_path / f"{name}{suffix}"
    path.write_text(config_template(name, yaml=suffix == ".yaml"), encoding="utf-8")
    resolved = resolve(name, config=path, env={})
    assert resolved.settings == JOBS[name].settings_type()


def test_config_show_prints_each_value_and_where_it_came_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.chdir(tmp_path)  # a short path: a long one folds over two lines of the table
    monkeypatch.setattr(console, "_width", 200)  # the shared console's width is fixed once a terminal was seen
    config = _toml(tmp_path, "[kgqa]\ntop_n = 40\n").relative_to(tmp_path)
    result = runner.invoke(app, ["config", "show", "kgqa", "--model", MODEL, "--set", "depth=2", "--config",
                                 str(config)], env={"KGAGENTS_KGQA_MEMORY_K": "7", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[2].strip(): [c.strip() for c in line.split("│")[3:5]]
            for line in result.output.splitlines() if line.count("│") >= 5 and line.split("│")[2].strip()}
    assert rows["depth"] == ["2", "--set"] and rows["top_n"] == ["40", f"config {config}"]
    assert rows["memory_k"] == ["7", "env KGAGENTS_KGQA_MEMORY_K"] and rows["mode"][1] == f"model {MODEL}"
    refused = runner.invoke(app, ["config", "show", "kgqa", "--set", "depht=2"])
    assert refused.exit_code == 1 and "did you mean 'depth'" in refused.output and "Traceback" not in refused.output
