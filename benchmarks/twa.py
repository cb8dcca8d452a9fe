"""``kgagents bench twa``: compile the TWA T-Boxes into tool catalogues and self-test the slot scorer.

Writes ``extraction/twa/tool_catalogue_<ontology>.md`` per T-Box, ``extraction/twa/tools.json`` (counts per
tool group), and ``extraction/twa/scorer_selftest.json``: the scorer on the shared ground-truth example
against itself and against perturbed copies (records reordered and reformatted, one record dropped,
one value changed, one record added, one category missing). No LLM and no extraction: the MOPs
extraction itself needs a capable model and the paper's full text, which are not available offline.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import RESULTS_DIR
from benchmarks.provenance import command_line, write_results
from kgagents.metrics.twa import load_ground_truth, records, score
from kgagents.paths import REPO_ROOT, data_dir
from kgagents.tools.catalogue_view import catalogue_markdown
from kgagents.tools.compiler import compile_ontology

Perturbation = Callable[[dict[str, Any]], None]


def _shown(path: Path) -> str:
    """A data path as results files show it: relative to the repository (``../shared/data/…``)."""
    return os.path.relpath(path, REPO_ROOT)


def _reorder_and_reformat(doc: dict[str, Any]) -> None:
    for category in doc.values():
        target = category["Devices"][0]["Characterisation"] if "Devices" in category else records(category)
        target.reverse()
    first = records(doc["cbu"])[0]
    first["mopCCDCNumber"] = f"  {first['mopCCDCNumber']} "


def _drop_chemicals_record(doc: dict[str, Any]) -> None:
    records(doc["chemicals"]).pop()


def _change_cbu_value(doc: dict[str, Any]) -> None:
    records(doc["cbu"])[1]["cbuFormula1"] = "[C8H4O4]"


def _add_characterisation_record(doc: dict[str, Any]) -> None:
    target = doc["characterisation"]["Devices"][0]["Characterisation"]
    extra = copy.deepcopy(target[0])
    extra["productCCDCNumber"] = "999999"
    target.append(extra)


def _drop_steps(doc: dict[str, Any]) -> None:
    del doc["steps"]


PERTURBATIONS: dict[str, Perturbation] = {
    "identical copy": lambda doc: None,
    "records reordered, whitespace added": _reorder_and_reformat,
    "one chemicals record dropped": _drop_chemicals_record,
    "one cbu value changed": _change_cbu_value,
    "one characterisation record added": _add_characterisation_record,
    "steps category missing": _drop_steps,
}


def scorer_selftest(ground_truth: Path) -> dict[str, Any]:
    truth = load_ground_truth(ground_truth)
    rows = {}
    for name, perturb in PERTURBATIONS.items():
        predicted = copy.deepcopy(truth)
        perturb(predicted)
        rows[name] = score(truth, predicted)
    return {"ground_truth": _shown(ground_truth), "categories": sorted(truth), "results": rows}


def run(data: Path | None = None, out: Path = RESULTS_DIR) -> dict[str, Any]:
    """Write the catalogues and the self-test; returns the summary (with the files written). ``data``: the TWA MOPs
    folder (default ``extraction/twa_mops`` in the data folder, KGAGENTS_DATA_DIR)."""
    data = data or data_dir("extraction", "twa_mops")
    out.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    tools: dict[str, Any] = {}
    for path in sorted((data / "ontologies").iterdir()):
        catalogue = compile_ontology(path)
        target = out / "extraction" / "twa" / f"tool_catalogue_{path.stem}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(catalogue_markdown(catalogue, command=command_line(), source=_shown(path)), encoding="utf-8")
        files.append(str(target))
        tools[path.name] = {"tools": len(catalogue), "classes": len(catalogue.tbox.classes),
                            "properties": len(catalogue.tbox.properties),
                            "groups": {g.value: len(t) for g, t in catalogue.by_group().items()}}
    files += [str(p) for p in write_results(out, "extraction/twa/tools", {"data": _shown(data), "ontologies": tools})]
    selftest = scorer_selftest(next((data).glob("ground_truth_example_*")))
    files += [str(p) for p in write_results(out, "extraction/twa/scorer_selftest", selftest, _markdown)]
    return {"tools": tools, "selftest": selftest, "files": files}


def _markdown(selftest: dict[str, Any]) -> str:
    lines = ["# TWA slot scorer self-test", "", f"Command: `{selftest['command']}`  ",
             f"Ground truth: `{selftest['ground_truth']}` (categories: {', '.join(selftest['categories'])})", "",
             "Records are matched one-to-one maximising exact slots; macro = mean of per-category scores.", "",
             "| prediction | micro P | micro R | micro F1 | macro F1 | per-category F1 |", "|---|---|---|---|---|---|"]
    for name, r in selftest["results"].items():
        cats = ", ".join(f"{c} {v['f1']:.3f}" for c, v in r["categories"].items())
        lines.append(f"| {name} | {r['micro']['precision']:.3f} | {r['micro']['recall']:.3f} | {r['micro']['f1']:.3f} "
                     f"| {r['macro']['f1']:.3f} | {cats} |")
    return "\n".join(lines) + "\n"
