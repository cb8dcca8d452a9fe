"""The bootstrap's words (no server): template questions from relation labels with the inverse direction worded,
which model paraphrases are kept, and which path types get questions."""

from __future__ import annotations

from kgagents.agent.kgqa.bootstrap import Instance, PathType, choose_paths, template_questions, usable_paraphrases

NAMES = {"P19": "place of birth", "P17": "country", "directed_by": "directed_by"}


def test_templates_read_each_step_in_its_direction() -> None:
    forward = template_questions(("P19", "P17"), NAMES)
    assert forward[0] == "what is the country of the place of birth of X"
    assert "what is X's place of birth's country" in forward
    inverse = template_questions(("directed_by^-1",), NAMES)
    assert inverse[0] == "what is that whose directed by is X" and "what are the things with directed by X" in inverse
    assert all(q.count("X") == 1 for q in forward + inverse)


def test_a_paraphrase_is_kept_with_its_topic_masked_and_without_its_answers() -> None:
    example = Instance("Q42", "Douglas Adams", ("P19",), 1, ["Q350"], ["Cambridge"])
    kept = usable_paraphrases(["Where was Douglas Adams born?", "Where was X born?", "where was  X born?",
                               "Was X born in Cambridge?", "Where was he born?", "X or X?"], example)
    assert kept == ["Where was X born?", "where was X born?"]


def test_path_types_seen_once_or_walking_straight_back_get_no_questions() -> None:
    def seen(path: tuple[str, ...], topics: int) -> PathType:
        return PathType(path, [Instance(f"t{i}", f"t{i}", path, 1, ["a"], ["a"]) for i in range(topics)])

    found = {p.path: p for p in (seen(("P19",), 5), seen(("P19", "P17"), 3), seen(("P17",), 1),
                                 seen(("P19", "P19^-1"), 4), seen(("P19", "P17", "P17^-1"), 2))}
    assert [p.path for p in choose_paths(found, max_paths=10, min_support=2)] == [("P19",), ("P19", "P17")]
    assert [p.path for p in choose_paths(found, max_paths=1, min_support=1)] == [("P19",)]
