"""Text2KGBench (DBpedia-WebNLG): the data files and the benchmark's own scoring definitions.

The metrics follow ``src/evaluation/run_eval.py`` of cenguix/Text2KGBench:

* a triple is compared as one string: subject, relation and object with ``_`` and whitespace removed,
  lower-cased and concatenated;
* before precision/recall, system triples whose relation does not occur in that sentence's ground
  truth are dropped; precision, recall and F1 are per sentence (all 0 when nothing is left);
* ontology conformance = share of the sentence's system triples whose relation is an ontology
  relation (1 when there are none); relation hallucination = 1 − conformance;
* subject / object hallucination = share of triples whose stemmed, space-free subject (object) is not
  a substring of the stemmed, space-free sentence followed by the ontology's concept labels (0 when
  there are no triples);
* an ontology's figure is the sum over its ground-truth sentences divided by their number (a
  sentence without system output counts 0), and the global figure the mean over ontologies.

Tokenising uses nltk's Porter stemmer and word tokenizer as the original does; nltk's pre-trained
Punkt sentence model cannot be downloaded offline, so sentences are split by Punkt's untrained
defaults (differences only where an abbreviation ends in a full stop).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from statistics import fmean
from typing import Any

from kgagents.errors import InputFileError

Triple = tuple[str, str, str]
METRICS = ("precision", "recall", "f1", "onto_conf", "rel_halluc", "sub_halluc", "obj_halluc", "f1_ignoring_quotes",
           "f1_as_stored")
BASELINES = ("Vicuna-13B", "Alpaca-LoRA-13B")
ABOX_PREFIX = "text2kgbench:"  # per-sentence A-Boxes: text2kgbench:<mode>:<sentence id>


# -- data -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sentence:
    """One test sentence with its ground-truth triples."""

    id: str
    text: str
    triples: tuple[Triple, ...]


@dataclass(frozen=True)
class OntologyData:
    """One of the 19 ontologies: its JSON file, test sentences with ground truth, and the raw ontology."""

    id: str  # e.g. "1_university"
    ontology_path: Path
    ontology: dict[str, Any]
    sentences: tuple[Sentence, ...]

    @property
    def relations(self) -> set[str]:
        return {r["label"].replace(" ", "_") for r in self.ontology["relations"]}


def ontology_ids(root: Path) -> list[str]:
    """``1_university`` … ``19_film``, in the benchmark's numeric order."""
    found = [p.name.removesuffix("_ontology.json") for p in (root / "ontologies").glob("*_ontology.json")]
    if not found:
        raise InputFileError(f"no Text2KGBench ontologies under {root / 'ontologies'}")
    return sorted(found, key=lambda s: int(s.split("_", 1)[0]))


#: where each split's sentences with their triples are: the test split's ground truth, or the train sentences
SPLITS = {"test": ("ground_truth", "ground_truth"), "train": ("train", "train")}


def load_ontology_data(root: Path, onto_id: str, split: str = "test") -> OntologyData:
    """The ontology JSON and one split's sentences with their triples: ``test`` (the ground truth of the test
    sentences, ``ground_truth/ont_<id>_ground_truth.jsonl``, what results report) or ``train``
    (``train/ont_<id>_train.jsonl``, what prompts and design choices are tuned on)."""
    if split not in SPLITS:
        raise InputFileError(f"unknown Text2KGBench split {split!r}; use one of {', '.join(SPLITS)}")
    path = root / "ontologies" / f"{onto_id}_ontology.json"
    ontology = json.loads(path.read_text(encoding="utf-8"))
    folder, suffix = SPLITS[split]
    return OntologyData(onto_id, path, ontology, read_sentences(root / folder / f"ont_{onto_id}_{suffix}.jsonl"))


#: the two record shapes Text2KGBench writes, as an error message tells a user whose file has neither
RECORD_SHAPES = ("'sent' and its 'triples' (a list of {sub, rel, obj}; the DBpedia-WebNLG shape), or 'sent' and "
                 "one triple as 'sub_label', 'rel_label', 'obj_label' (the Wikidata-TekGen shape, whose 'sub', "
                 "'rel', 'obj' are ids; without labels they are the triple); 'id' is optional")


class RecordError(ValueError):
    """A record holds neither of the :data:`RECORD_SHAPES`; the message says what is wrong with it."""


def record_triples(record: Any) -> tuple[Triple, ...]:
    """The triples one record states, in either shape Text2KGBench uses: ``{"sent", "triples": [{"sub", "rel",
    "obj"}, …]}`` or one triple per record, ``{"sent", "sub_label", "rel_label", "obj_label", "sub", "rel",
    "obj"}`` (labels preferred: the benchmark scores triples in words, and the ids are Wikidata's)."""
    if not isinstance(record, Mapping):
        raise RecordError(f"a JSON object is expected, not {type(record).__name__}")
    if "triples" in record:
        if not isinstance(record["triples"], list):
            raise RecordError("'triples' is not a list")
        return tuple(_triple(t) for t in record["triples"])
    return (_triple(record),)


def _triple(item: Any) -> Triple:
    if not isinstance(item, Mapping):
        raise RecordError(f"a triple is a JSON object, not {type(item).__name__}")
    parts = []
    for part in ("sub", "rel", "obj"):
        value = item.get(f"{part}_label", item.get(part))
        if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
            raise RecordError(f"no '{part}_label' or '{part}'" if value is None else f"'{part}' is empty")
        parts.append(str(value))
    return parts[0], parts[1], parts[2]


def read_sentences(path: Path) -> tuple[Sentence, ...]:
    """The sentences of a file in either :data:`RECORD_SHAPES`, with their triples, in file order. One-triple
    records of the same sentence become one sentence with all their triples (under the first record's id)."""
    sentences: list[Sentence] = []
    merged: dict[str, int] = {}  # sentence text → index, for one-triple records
    for n, record in enumerate(read_jsonl(path), start=1):
        try:
            triples = record_triples(record)
            text = record.get("sent")
            if not isinstance(text, str) or not text.strip():
                raise RecordError("no 'sent'")
        except RecordError as exc:
            keys = ", ".join(sorted(map(str, record))) if isinstance(record, Mapping) else "no fields"
            raise InputFileError(f"{path}:{n}: cannot read this record ({exc}; it has {keys}). A record needs "
                                 f"{RECORD_SHAPES}.") from exc
        if "triples" in record or text not in merged:
            if "triples" not in record:
                merged[text] = len(sentences)
            sentences.append(Sentence(str(record.get("id", n)), text, triples))
        else:
            first = sentences[merged[text]]
            sentences[merged[text]] = Sentence(first.id, first.text, first.triples + triples)
    return tuple(sentences)


def sample_sentences(data: OntologyData, sample: int | None, seed: int) -> list[str]:
    """All sentence ids, or a seeded random sample of ``sample`` of them (in file order)."""
    ids = [s.id for s in data.sentences]
    if not sample or sample >= len(ids):
        return ids
    chosen = set(random.Random(f"{seed}:{data.id}").sample(ids, sample))
    return [i for i in ids if i in chosen]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a bad line names file and line."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{path}:{n}: invalid JSON ({exc.msg})") from exc
    return out


def published_baselines(root: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Model → ontology id (and ``global``) → metric → value, from ``baseline_metrics/``. The files are optional
    (the benchmark's published LLM results, for reference): a model whose file is absent is left out."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for model in BASELINES:
        path = root / "baseline_metrics" / f"{model}_avg_eval_results.jsonl"
        if not path.is_file():
            continue
        rows: dict[str, dict[str, float]] = {}
        for record in read_jsonl(path):
            key = record.get("onto") or record.get("id")
            if not isinstance(key, str):
                continue
            rows[key] = {m: float(record[f"avg_{m}"]) for m in METRICS if f"avg_{m}" in record}
        out[model] = rows
    return out


# -- the benchmark's triple format -----------------------------------------------------------------------
def quoted_relations(sentences: Iterable[Sentence]) -> frozenset[str]:
    """The relations whose objects ``sentences`` write in double quotes in most of their triples.

    WebNLG keeps DBpedia's literal / resource distinction by quoting some objects (``"Roland Desmond"``) and not
    others (``1987-09-27``, ``Fighter_pilot``), and the benchmark compares triples as strings; an A-Box of typed
    values loses the distinction. Output in the benchmark's format therefore quotes a relation's objects the way
    that relation's train triples do: a format convention learned from train data (relations without train
    triples are not quoted)."""
    seen: Counter[str] = Counter()
    quoted: Counter[str] = Counter()
    for sentence in sentences:
        for _, rel, obj in sentence.triples:
            key = rel.replace(" ", "_")
            seen[key] += 1
            quoted[key] += obj.startswith('"')
    return frozenset(r for r, n in seen.items() if 2 * quoted[r] > n)


def in_benchmark_format(triples: Iterable[Triple], quoted: frozenset[str]) -> list[Triple]:
    """``triples`` as the benchmark writes them: objects of ``quoted`` relations in double quotes."""
    return [(s, r, f'"{o}"' if r.replace(" ", "_") in quoted and not o.startswith('"') else o)
            for s, r, o in triples]


# -- the benchmark's definitions -------------------------------------------------------------------------
def normalise_triple(triple: Triple, ignore_quotes: bool = False) -> str:
    """The benchmark's comparison key; ``ignore_quotes`` (a diagnostic, not the benchmark's definition) also
    drops double quotes, which WebNLG writes around literals and RDF tools do not keep."""
    key = "".join(re.sub(r"(_|\s+)", "", part).lower() for part in triple)
    return key.replace('"', "") if ignore_quotes else key


def precision_recall_f1(gold: set[str], pred: set[str]) -> tuple[float, float, float]:
    if not pred:
        return 0.0, 0.0, 0.0
    hit = len(gold & pred)
    p, r = hit / len(pred), hit / len(gold)
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


def ontology_conformance(relations: set[str], triples: Sequence[Triple]) -> tuple[float, float]:
    """(conformance, relation hallucination)."""
    if not triples:
        return 1.0, 0.0
    conformant = sum(t[1] in relations for t in triples) / len(triples)
    return conformant, 1 - conformant


@lru_cache(maxsize=1)
def _nlp() -> tuple[Any, Any, Any]:
    from nltk.stem import PorterStemmer
    from nltk.tokenize import NLTKWordTokenizer, PunktSentenceTokenizer

    return PorterStemmer(), NLTKWordTokenizer(), PunktSentenceTokenizer()


def _stemmed(text: str) -> str:
    stemmer, words, sentences = _nlp()
    tokens = [w for s in sentences.tokenize(text) for w in words.tokenize(s)]
    return re.sub(r"(_|\s+)", "", "".join(stemmer.stem(w) for w in tokens)).lower()


def subject_object_hallucination(concept_labels: Sequence[str], sentence: str,
                                 triples: Sequence[Triple]) -> tuple[float, float]:
    if not triples:
        return 0.0, 0.0
    context = _stemmed(sentence + " ".join(concept_labels))  # joined without a space, as the original does
    missing_sub = sum(context.find(_stemmed(t[0]).replace("01januari", "")) == -1 for t in triples)
    missing_obj = sum(context.find(_stemmed(t[2]).replace("01januari", "")) == -1 for t in triples)
    return missing_sub / len(triples), missing_obj / len(triples)


def sentence_prf(sentence: Sentence, system: Sequence[Triple], ignore_quotes: bool = False
                 ) -> tuple[float, float, float]:
    """The benchmark's precision, recall and F1 of one sentence's output: triples whose relation the ground truth
    does not use are left out first (the benchmark's own filter), then normalised triples are compared."""
    gt_relations = {t[1].replace(" ", "_") for t in sentence.triples}
    filtered = [t for t in system if t[1] in gt_relations]
    return precision_recall_f1({normalise_triple(t, ignore_quotes) for t in sentence.triples},
                               {normalise_triple(t, ignore_quotes) for t in filtered})


def score_sentence(sentence: Sentence, system: Sequence[Triple], relations: set[str],
                   concept_labels: Sequence[str], quoted: frozenset[str] = frozenset()) -> dict[str, float]:
    """The seven per-sentence metrics of one system output in the benchmark's format (objects of ``quoted``
    relations in quotes, :func:`in_benchmark_format`), plus two diagnostics: ``f1_ignoring_quotes`` and
    ``f1_as_stored`` (the output as stored, no quotes added)."""
    stored, system = system, in_benchmark_format(system, quoted)
    p, r, f1 = sentence_prf(sentence, system)
    f1_unquoted = sentence_prf(sentence, system, ignore_quotes=True)[2]
    conf, rel_h = ontology_conformance(relations, system)
    sub_h, obj_h = subject_object_hallucination(concept_labels, sentence.text, system)
    return {"precision": p, "recall": r, "f1": f1, "onto_conf": conf, "rel_halluc": rel_h,
            "sub_halluc": sub_h, "obj_halluc": obj_h, "f1_ignoring_quotes": f1_unquoted,
            "f1_as_stored": sentence_prf(sentence, stored)[2]}


def score_ontology(data: OntologyData, system: Mapping[str, Sequence[Triple]],
                   sentence_ids: Iterable[str] | None = None, quoted: frozenset[str] = frozenset()
                   ) -> dict[str, float]:
    """Averages over ``sentence_ids`` (default: every ground-truth sentence); missing output counts 0; objects of
    ``quoted`` relations are quoted first (:func:`in_benchmark_format`)."""
    wanted = set(sentence_ids) if sentence_ids is not None else None
    sentences = [s for s in data.sentences if wanted is None or s.id in wanted]
    labels = [c["label"] for c in data.ontology["concepts"]]
    totals = dict.fromkeys(METRICS, 0.0)
    for sentence in sentences:
        if sentence.id in system:
            for k, v in score_sentence(sentence, system[sentence.id], data.relations, labels, quoted).items():
                totals[k] += v
    return {k: v / len(sentences) if sentences else 0.0 for k, v in totals.items()}


def global_means(per_ontology: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The benchmark's global figure: the mean over ontologies of each metric."""
    return {m: fmean(s[m] for s in per_ontology.values()) for m in METRICS} if per_ontology else {}
