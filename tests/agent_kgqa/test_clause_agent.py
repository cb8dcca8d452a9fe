"""The clause reading on real Neo4j with the real encoders, no LLM, on a KG of a domain none of the benchmarks has
(a 63-triple music KG made for this test, as a new user would bring): a question whose relations nest in clauses
("who produced the albums recorded by the band that X is a member of") is answered along its three relations, and
reading clauses loses none of the other questions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import run_questions
from kgagents.loaders.qa import EntityRef, Question

BANDS = {"Radiohead": ("Abingdon", ["Thom Yorke", "Jonny Greenwood", "Ed O'Brien"]),
         "Foals": ("Oxford", ["Yannis Philippakis"]),
         "Coldplay": ("London", ["Chris Martin", "Jonny Buckland"]),
         "Blur": ("London", ["Damon Albarn", "Graham Coxon"])}
BORN = {"Thom Yorke": "Wellingborough", "Jonny Greenwood": "Oxford", "Ed O'Brien": "Oxford",
        "Yannis Philippakis": "Athens", "Chris Martin": "Exeter", "Jonny Buckland": "Islington",
        "Damon Albarn": "Whitechapel", "Graham Coxon": "Rinteln", "Nigel Godrich": "Westminster",
        "Brian Eno": "Woodbridge", "Stephen Street": "Hackney"}
# album: band, producer, label, year
ALBUMS = {"OK Computer": ("Radiohead", "Nigel Godrich", "Parlophone", 1997),
          "Kid A": ("Radiohead", "Nigel Godrich", "Parlophone", 2000),
          "In Rainbows": ("Radiohead", "Nigel Godrich", "XL Recordings", 2007),
          "Antidotes": ("Foals", "Dave Sitek", "Transgressive", 2008),
          "Total Life Forever": ("Foals", "Luke Smith", "Transgressive", 2010),
          "Parachutes": ("Coldplay", "Ken Nelson", "Parlophone", 2000),
          "Viva la Vida": ("Coldplay", "Brian Eno", "Parlophone", 2008),
          "Parklife": ("Blur", "Stephen Street", "Food Records", 1994),
          "The Great Escape": ("Blur", "Stephen Street", "Food Records", 1995)}
LABELS = {"Parlophone": "London", "XL Recordings": "London", "Transgressive": "London", "Food Records": "London"}


def triples() -> str:
    rows = [f"{band}|founded_in|{city}" for band, (city, _) in BANDS.items()]
    rows += [f"{person}|member_of|{band}" for band, (_, members) in BANDS.items() for person in members]
    rows += [f"{person}|born_in|{city}" for person, city in BORN.items()]
    for album, (band, producer, label, year) in ALBUMS.items():
        rows += [f"{album}|recorded_by|{band}", f"{album}|produced_by|{producer}", f"{album}|released_by|{label}",
                 f"{album}|release_year|{year}"]
    rows += [f"{label}|located_in|{city}" for label, city in LABELS.items()]
    return "\n".join(rows) + "\n"


QUESTIONS = [  # (question with its topic in brackets, answers)
    ("who produced the albums recorded by the band that [Chris Martin] is a member of", ["Ken Nelson", "Brian Eno"]),
    ("the albums recorded by the band of [Damon Albarn] were released by which label", ["Food Records"]),
    ("which label released the albums produced by [Stephen Street]", ["Food Records"]),
    ("where were the members of [Foals] born", ["Athens"]),
    ("what albums did [Coldplay] record", ["Parachutes", "Viva la Vida"]),
    ("who produced [Kid A]", ["Nigel Godrich"]),
    ("where was the producer of [Parklife] born", ["Hackney"]),
    ("in which year were the albums produced by [Brian Eno] released", ["2008"]),
    ("where is the label that released [In Rainbows] located", ["London"]),
]


def questions() -> list[Question]:
    out = []
    for i, (text, answers) in enumerate(QUESTIONS):
        topic = text.split("[")[1].split("]")[0]
        out.append(Question(id=f"q{i}", dataset="music", question=text.replace("[", "").replace("]", ""),
                            topic_entities=[EntityRef(id=topic, name=topic)],
                            answers=[EntityRef(id=a, name=a) for a in answers]))
    return out


def test_clauses_are_read_on_a_kg_of_a_new_domain(prepared: Callable[[Path, str], Graph], tmp_path: Path) -> None:
    kb = tmp_path / "music_kb.txt"
    kb.write_text(triples(), encoding="utf-8")
    asked = questions()
    g = prepared(kb, "music")
    plain = KGQASettings(mode="no_llm", memory=False)
    off = run_questions(g, "music", asked, plain.model_copy(update={"parse_clauses": False}), None).output
    on = run_questions(g, "music", asked, plain, None).output
    hit_off = {r.question_id: r.correct for r in off.results}
    hit_on = {r.question_id: r.correct for r in on.results}
    clause = next(r for r in on.results if r.question_id == "q0")
    assert clause.correct and clause.path is not None and clause.path.count("→") == 2, clause.path
    assert not hit_off["q0"]  # without the clause reading the path stops at the label, not the producer
    assert all(hit_on[q] for q, hit in hit_off.items() if hit), (hit_off, hit_on)
