"""One settings story for the four jobs: where each value of a run's settings comes from, decided in one place.

Why one function: a run's settings used to be decided in three places (the CLI's own ``KEY=VALUE`` parsers, the
settings classes reading the environment, the agents applying a model's values and a learned gate), each job a
little differently. :func:`resolve` is now the only place; the CLI, the Python API (every
:class:`~kgagents.agent.base.Agent`) and ``kgagents config show`` all call it, so a value means the same wherever it
is given. The order, strongest first:

1. an explicit **argument** (a keyword to the Python API, a dedicated CLI option such as ``match --threshold``);
2. ``--set KEY=VALUE`` on the command line;
3. a **config file** (``--config FILE``, TOML or YAML; a table per job, optionally grouped by stage);
4. the **environment** (``KGAGENTS_<JOB>_<SETTING>``, e.g. ``KGAGENTS_MATCH_THRESHOLD=0.8``);
5. a **learned gate**: what ``kgqa learn-gate`` (and the like) stored for this model on the user's own data — more
   specific than the model's general defaults, so it can open a gate they keep closed;
6. the **model's defaults**: the values the benchmarks chose for that chat model, kept with the model registry
   (:data:`kgagents.llm.models.MODEL_SETTINGS`);
7. the settings class's **default** — the no-LLM best.

With no chat model at all the mode is ``no_llm`` whatever the layers say (the documented offline ablation).
Library defaults never read gold data; where a default came from is in each job's defaults table
(``CHOSEN_BY`` in ``kgagents/agent/<job>/settings.py``), which names the results file that chose it.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from kgagents.errors import AgentSettingsError, InputFileError

#: the mode every agent has: no chat model is called (the documented offline ablation)
NO_LLM = "no_llm"


class AgentSettings(BaseModel):
    """Base of every job's settings. ``mode`` is narrowed by each job (a ``Literal`` that includes :data:`NO_LLM`);
    unknown fields are refused so a typo is an error, not a silent default."""

    model_config = ConfigDict(extra="forbid")

    mode: str = "full"

    @property
    def uses_llm(self) -> bool:
        return self.mode != NO_LLM


S = TypeVar("S", bound=AgentSettings)


@dataclass(frozen=True)
class Job:
    """A job whose runs take settings: its name (the ``--config`` table, the ``config show`` argument), its
    settings class (``module:Class``, imported when first needed) and the environment prefix of its settings."""

    name: str
    settings_path: str
    title: str

    @property
    def env_prefix(self) -> str:
        return f"KGAGENTS_{self.name.upper()}_"

    @property
    def settings_type(self) -> type[AgentSettings]:
        module, _, name = self.settings_path.partition(":")
        settings_type: type[AgentSettings] = getattr(import_module(module), name)
        return settings_type

    @property
    def module(self) -> Any:
        return import_module(self.settings_path.partition(":")[0])


JOBS: dict[str, Job] = {job.name: job for job in (
    Job("match", "kgagents.agent.matching.settings:MatchSettings", "ontology matching (Agent-OM)"),
    Job("align", "kgagents.agent.alignment.settings:EASettings", "entity alignment: the EA-Agent (LLM) on top"),
    Job("retrieval", "kgagents.agent.alignment.settings:RetrievalSettings",
        "entity alignment: retrieval, tuning and assignment (kgagents align)"),
    Job("kgqa", "kgagents.agent.kgqa.settings:KGQASettings", "KG question answering (ODA)"),
    Job("bootstrap", "kgagents.agent.kgqa.settings:BootstrapSettings",
        "KGQA: a path memory from the KG itself (kgqa bootstrap)"),
    Job("extract", "kgagents.agent.extraction.settings:ExtractionSettings", "ontology-to-tools extraction"),
)}

#: the layers of :func:`resolve` (the names ``config show`` prints in its "from" column)
DEFAULT, MODEL, LEARNED, ENV, CONFIG, SET, ARGUMENT, NO_MODEL = (
    "default", "model", "learned", "env", "config", "--set", "argument", "no model")


@dataclass
class Resolved(Generic[S]):
    """A job's settings and, for every field, the layer its value came from (with the detail: which variable,
    file or model)."""

    job: str
    settings: S
    sources: dict[str, str] = field(default_factory=dict)

    def changed(self) -> dict[str, Any]:
        """The values that are not the class default (what a results index or a run's summary shows)."""
        values = self.settings.model_dump(mode="json")
        return {k: values[k] for k, source in self.sources.items() if source != DEFAULT}


def job(name: str) -> Job:
    """The job called ``name`` (one error naming the jobs there are)."""
    try:
        return JOBS[name]
    except KeyError:
        raise AgentSettingsError(f"no job '{name}': the jobs with settings are {', '.join(JOBS)}") from None


def job_of(settings_type: type[AgentSettings]) -> Job | None:
    """The job whose settings class is ``settings_type`` (None: a class no job registers, e.g. a test's)."""
    for candidate in JOBS.values():
        module, _, name = candidate.settings_path.partition(":")
        if settings_type.__module__ == module and settings_type.__name__ == name:
            return candidate
    return None


def resolve(name: str | Job, *, arguments: Mapping[str, Any] | AgentSettings | None = None,
            sets: Sequence[str] = (), config: Path | Mapping[str, Any] | None = None,
            env: Mapping[str, str] | None = None, model: str | None = None, offline: bool = False,
            learned: Mapping[str, Any] | None = None, learned_from: str = "learned gate") -> Resolved[Any]:
    """The settings of one run of job ``name`` from every layer (see the module docstring).

    ``arguments``: explicit values (a mapping, or a settings object whose explicitly set fields count);
    ``sets``: ``KEY=VALUE`` texts; ``config``: a TOML/YAML file (or its parsed content); ``env``: the environment
    (default ``os.environ``); ``model``: the chat model's name (its defaults apply); ``offline``: there is no chat
    model, so the mode is ``no_llm``; ``learned``: a learned gate's values (``learned_from`` says which).
    An unknown setting anywhere, or a value its field refuses, is one :class:`AgentSettingsError` naming where it
    was given."""
    spec = name if isinstance(name, Job) else job(name)
    fields = spec.settings_type.model_fields
    layers: list[tuple[str, dict[str, Any]]] = [
        (f"{MODEL} {model}", _known(dict(model_settings(model, spec.name)), fields, f"model {model}'s defaults")),
        (f"{LEARNED} ({learned_from})", _known(dict(learned or {}), fields, learned_from)),
        *_env_layers(spec, os.environ if env is None else env),
        *_config_layers(spec, config),
        (SET, _parse_sets(sets, fields)),
        (ARGUMENT, _arguments(arguments, fields)),
    ]
    values: dict[str, Any] = {}
    sources: dict[str, str] = dict.fromkeys(fields, DEFAULT)
    for source, layer in layers:
        for key, value in layer.items():
            values[key], sources[key] = value, source
    if offline and "mode" in fields and values.get("mode", fields["mode"].default) != NO_LLM:
        values["mode"], sources["mode"] = NO_LLM, f"{NO_MODEL} (the no-LLM ablation)"
    try:
        settings = spec.settings_type.model_validate(values)
    except ValidationError as exc:
        raise AgentSettingsError(f"invalid {spec.name} setting: " + "; ".join(
            f"{_where(e['loc'], sources)}: {e['msg']} (got {e.get('input')!r})" for e in exc.errors())) from None
    return Resolved(spec.name, settings, sources)


def model_settings(model: str | None, job_name: str) -> Mapping[str, Any]:
    """The values the benchmarks chose for ``model`` on job ``job_name`` (empty for a model without any)."""
    if not model:
        return {}
    from kgagents.llm.models import MODEL_SETTINGS

    return MODEL_SETTINGS.get(model, {}).get(job_name, {})


def _where(loc: Sequence[Any], sources: Mapping[str, str]) -> str:
    key = str(loc[0]) if loc else "settings"
    return f"{key} (from {sources[key]})" if key in sources else key


def _known(values: dict[str, Any], fields: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``values``, refusing a key that is no setting (with the nearest setting's name as a hint)."""
    for key in values:
        if key not in fields:
            near = difflib.get_close_matches(key, list(fields), n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise AgentSettingsError(f"{where}: no setting '{key}'{hint}")
    return values


def _arguments(arguments: Mapping[str, Any] | AgentSettings | None, fields: Mapping[str, Any]) -> dict[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, AgentSettings):
        return {k: getattr(arguments, k) for k in arguments.model_fields_set}
    return _known({k: v for k, v in arguments.items() if v is not None}, fields, "argument")


def _parse_sets(sets: Sequence[str], fields: Mapping[str, Any]) -> dict[str, Any]:
    """``KEY=VALUE`` texts as values (the one parser of the CLI's ``--set``)."""
    values: dict[str, Any] = {}
    for text in sets:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise AgentSettingsError(f"--set {text!r}: expected KEY=VALUE, e.g. threshold=0.8")
        values[key.strip()] = text_value(value.strip(), fields.get(key.strip()))
    return _known(values, fields, "--set")


def text_value(text: str, info: Any = None) -> Any:
    """A value written as text (``--set``, the environment): ``none``/``null`` is None, a JSON list or object is
    parsed, a comma-separated text is a list for a list/tuple setting; the rest is left to the field's own
    validation ("0.8" → 0.8, "false" → False)."""
    if text.lower() in ("none", "null"):
        return None
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    annotation = getattr(info, "annotation", None)
    if typing.get_origin(annotation) in (list, tuple, set, frozenset):
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def _env_layers(spec: Job, env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    fields = spec.settings_type.model_fields
    layers = []
    for variable, text in sorted(env.items()):
        if variable.startswith(spec.env_prefix):
            key = variable[len(spec.env_prefix):].lower()
            layers.append((f"{ENV} {variable}", _known({key: text_value(text, fields.get(key))}, fields, variable)))
    return layers


def _config_layers(spec: Job, config: Path | Mapping[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    if config is None:
        return []
    content = read_config(config) if isinstance(config, Path) else config
    where = f"{CONFIG} {config}" if isinstance(config, Path) else CONFIG
    table = content.get(spec.name, {})
    if not isinstance(table, Mapping):
        raise AgentSettingsError(f"{where}: [{spec.name}] must be a table of settings, not {table!r}")
    fields = spec.settings_type.model_fields
    return [(where, _known(_flatten(table, fields), fields, f"{where} [{spec.name}]"))]


def _flatten(table: Mapping[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """A job's table with its stage tables (``[match.retrieval]``) merged: stages only group the settings."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, Mapping) and key not in fields:
            flat.update(_flatten(value, fields))
        else:
            flat[key] = value
    return flat


def read_config(path: Path) -> dict[str, Any]:
    """A settings file: TOML (``.toml``) or YAML (``.yaml``/``.yml``), a table per job (``match``, ``align``,
    ``kgqa``, ``extract``). Unreadable or malformed: one :class:`InputFileError` naming the file and the place."""
    if not path.is_file():
        raise InputFileError(f"--config {path}: no such file.")
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib
            content: Any = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            content = yaml.safe_load(text) or {}
        else:
            raise InputFileError(f"--config {path}: use a .toml, .yaml or .yml file.")
    except InputFileError:
        raise
    except Exception as exc:  # tomllib.TOMLDecodeError / yaml.MarkedYAMLError carry the line and column
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputFileError(f"--config {path}: {where}{problem}") from None
    if not isinstance(content, dict):
        raise InputFileError(f"--config {path}: expected a table per job (match, align, kgqa, extract) at the top.")
    unknown = [key for key in content if key not in JOBS]
    if unknown:
        raise InputFileError(f"--config {path}: no job '{unknown[0]}' (the jobs are {', '.join(JOBS)}).")
    return content


def stages(spec: Job) -> dict[str, tuple[str, ...]]:
    """The job's settings grouped by stage (``STAGES`` of its settings class, else of its settings module, else
    each field's ``stage`` in its schema; every field in exactly one group, a test checks), for ``config show`` and
    the config template."""
    fields = spec.settings_type.model_fields
    declared = getattr(spec.settings_type, "STAGES", None) or getattr(spec.module, "STAGES", {})
    grouped: dict[str, tuple[str, ...]] = {
        stage: kept for stage, names in declared.items()
        if (kept := tuple(f for f in names if f in fields))}
    taken = {f for names in grouped.values() for f in names}
    for name, info in fields.items():
        extra = info.json_schema_extra
        stage = extra.get("stage") if isinstance(extra, dict) else None
        if name not in taken and isinstance(stage, str):
            grouped[stage] = (*grouped.get(stage, ()), name)
            taken.add(name)
    rest = tuple(f for f in fields if f not in taken)
    return {**grouped, **({"other": rest} if rest else {})}


def chosen_by(spec: Job) -> Mapping[str, str]:
    """The job's defaults table: setting → the results file (under ``benchmarks/results/``) that chose its
    default (``CHOSEN_BY`` of its settings class, else of its settings module, for the class's own fields)."""
    table: Mapping[str, str] | None = getattr(spec.settings_type, "CHOSEN_BY", None)
    if table is None:
        table = getattr(spec.module, "CHOSEN_BY", {})
    return {k: v for k, v in table.items() if k in spec.settings_type.model_fields}


def config_template(name: str, *, yaml: bool = False) -> str:
    """A settings file for job ``name`` with every setting at its default, grouped by stage, one comment each (the
    description of the setting): TOML, or YAML with ``yaml``."""
    import textwrap

    spec = job(name)
    fields = spec.settings_type.model_fields
    defaults = spec.settings_type().model_dump(mode="json")
    lines = [f"# kgagents settings for {spec.name}: {spec.title}. Every value below is the default; keep the ones",
             "# you change. Pass the file with --config FILE; `kgagents config show "
             f"{spec.name} --config FILE` shows what a run would use.", ""]
    if yaml:
        lines.append(f"{spec.name}:")
    for stage, names in stages(spec).items():
        lines.append(f"  {stage}:" if yaml else f"[{spec.name}.{stage}]")
        for key in names:
            indent = "    " if yaml else ""
            for comment in textwrap.wrap(fields[key].description or key, 110 - len(indent)):
                lines.append(f"{indent}# {comment}")
            value = defaults[key]
            if yaml:
                lines.append(f"{indent}{key}: {json.dumps(value)}")
            elif value is None:
                lines.append(f"# {key} =   (unset)")
            else:
                lines.append(f"{key} = {json.dumps(value)}")
        lines.append("")
    return "\n".join(lines)
