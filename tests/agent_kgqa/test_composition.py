"""A question worded as nested noun phrases, read as its relation chain: the split at "of" and "'s", the frames
and the refusals, and how each mention is named by the closest relation label."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgagents.agent.kgqa.composition import (
    Pieces,
    clause_pieces,
    forwards,
    named_relations,
    parsed_chain,
    pieces,
    segmentations,
    shares_a_value,
    there_and_back,
    unnamed,
)


def test_possessives_run_forwards_and_of_nests_outwards() -> None:
    assert pieces("X 's mother 's place of birth ?") == Pieces(("mother", "place of birth"), ())
    assert pieces("what is the place of birth of the mother of X") == Pieces((), ("mother", "birth", "place"))
    # mixed: the possessives first (they bind to the topic), then the "of" nest from the inside out
    assert pieces("who is the spouse of the heir of X's father?") == Pieces(("father",), ("heir", "spouse"))
    assert pieces("what is the X 's spouse 's son ?") == Pieces(("spouse", "son"), ())  # "the X's"
    assert pieces("the name of the mother of X") == Pieces((), ("mother",))  # "the name of" is a frame
    assert pieces("which nationality is X's wife") == Pieces(("wife",), ("nationality",))  # the frame names one
    assert pieces("X’s mother") == Pieces(("mother",), ())  # a typographic apostrophe


def test_a_question_that_is_not_a_noun_phrase_chain_is_not_read() -> None:
    assert pieces("who directed the movies written by the writer of X") is None  # a verb's words in a mention
    assert pieces("what films did X act in") is None
    assert pieces("where was X born") is None
    assert pieces("where was X's husband's mother born") is None  # "where": not a frame around a noun phrase
    assert pieces("the mother of the mother") is None  # no topic
    assert pieces("X and the mother of X") is None  # the topic twice


def test_clauses_around_the_topic_are_read_from_the_topic_outwards() -> None:
    assert clause_pieces("who acted in the films directed by the director of X") == \
        Pieces(("director", "films directed", "acted"), ())
    # the words after the topic name the last relations, in order
    assert clause_pieces("the movies written by the writer of X starred who") == \
        Pieces(("writer", "movies written", "starred"), ())
    # a clause on the topic itself, or no clause, names one relation: not read (its noun is the answer's type)
    assert clause_pieces("what genres are the films written by X") is None
    assert clause_pieces("what films did X direct") is None
    assert clause_pieces("X was directed by who") is None
    assert clause_pieces("who is the director of the film X") is None
    # "the film X": the noun naming the topic's type is no relation; "films that": the things asked for
    assert clause_pieces("who starred in films that share a writer with the film X") == \
        Pieces(("writer", "share", "starred"), ())
    assert clause_pieces("what are the genres of the films whose directors also directed X") == \
        Pieces(("directors also directed", "genres"), ())
    assert clause_pieces("who directed X and X") is None  # the topic twice


def test_the_clause_reading_is_used_only_where_asked_and_the_noun_phrase_reading_fails() -> None:
    relations = {"directed_by": "directed by director", "starred": "starred actors acted", "genre": "has genre"}
    vectors = _bag_of_words(["directed", "director", "starred", "actors", "acted", "genre", "genres"])
    question = "who acted in the films directed by the director of X"
    assert parsed_chain(question, relations, vectors, depth=3) is None
    found = parsed_chain(question, relations, vectors, depth=3, clauses=True)
    assert found is not None and found.mentions == ("director", "films directed", "acted")
    assert found.chain == ("directed_by", "directed_by", "starred")
    # a noun phrase chain keeps its reading with clauses on
    assert parsed_chain("the genre of X's director", relations, vectors, depth=3, clauses=True) == \
        parsed_chain("the genre of X's director", relations, vectors, depth=3)


def test_of_pieces_may_be_one_mention() -> None:
    found = Pieces(("father",), ("birth", "place"))
    assert segmentations(found) == [["father", "birth", "place"], ["father", "place of birth"]]
    assert segmentations(Pieces(("a", "b"), ())) == [["a", "b"]]


def _bag_of_words(vocabulary: Sequence[str]):  # type: ignore[no-untyped-def]
    def vectors(texts: Sequence[str]) -> np.ndarray:
        rows = np.array([[float(w in t.split()) for w in vocabulary] for t in texts]) + 1e-3
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return vectors


def test_each_mention_is_named_by_the_closest_label_and_the_best_split_wins() -> None:
    relations = {"born_in": "place of birth", "parent": "mother father parent", "spouse": "spouse wife husband"}
    vectors = _bag_of_words(["place", "birth", "mother", "father", "parent", "spouse", "wife", "husband"])
    found = parsed_chain("what is the place of birth of X's wife's mother", relations, vectors, depth=3)
    assert found is not None
    assert found.chain == ("spouse", "parent", "born_in")  # "place of birth" as one mention, not "birth", "place"
    assert found.mentions == ("wife", "mother", "place of birth")
    assert parsed_chain("who directed X", relations, vectors, depth=3) is None
    # more mentions than the depth observed: not read
    assert parsed_chain("X's wife's mother's mother's husband", relations, vectors, depth=3) is None
    assert parsed_chain("X's wife", {}, vectors, depth=3) is None


def test_a_question_about_a_shared_value_asks_for_a_relation_there_and_back() -> None:
    assert shares_a_value("which films have the same director as X")
    assert shares_a_value("who co-starred with X") and shares_a_value("which films share actors with X")
    assert not shares_a_value("who directed X") and not shares_a_value("what is the place of birth of X")
    assert there_and_back(("directed_by", "directed_by^-1")) and there_and_back(("a^-1", "b", "b^-1"))
    assert not there_and_back(("directed_by", "directed_by")) and not there_and_back(("a^-1", "b"))
    assert not there_and_back(("a",))


def test_the_question_names_the_relations_its_words_come_closest_to() -> None:
    relations = {"written_by": "wrote written", "starred_actors": "starred actors", "directed_by": "directed"}
    vectors = _bag_of_words(["written", "wrote", "starred", "actors", "directed"])
    named = named_relations("who wrote X?", relations, vectors, margin=0.0)
    assert named == {"written_by"}
    # a path whose extra relation no word names is the one that loses
    assert unnamed(("written_by",), named) == 0
    assert unnamed(("written_by", "starred_actors^-1"), named) == 1
    assert unnamed(("written_by", "written_by^-1"), named) == 0  # one relation, there and back
    # the topic is not a word of the question, nor its possessive; a question of function words only names nothing
    assert named_relations("X's", relations, vectors, margin=0.0) is None
    assert named_relations("who is X", relations, vectors, margin=0.0) is None
    assert named_relations("who wrote X", {}, vectors, margin=0.0) is None


def test_a_wide_margin_names_more_relations() -> None:
    relations = {"a": "alpha", "b": "beta"}

    def vectors(texts: Sequence[str]) -> np.ndarray:  # "word" is 0.8 from alpha and 0.6 from beta
        table = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "word": [0.8, 0.6]}
        return np.array([table.get(t, [0.0, 0.0]) for t in texts])

    assert named_relations("word", relations, vectors, margin=0.0) == {"a"}
    assert named_relations("word", relations, vectors, margin=0.25) == {"a", "b"}


def test_a_path_goes_forwards_when_every_step_does() -> None:
    assert forwards(("spouse", "parents"))
    assert not forwards(("spouse", "parents^-1"))
