"""Structured output, yes/no and pick-one parsing, each with its one repair retry."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel

from kgagents.errors import StructuredOutputError
from kgagents.llm import (
    ask_yes_no,
    extract_json,
    option_log_probs,
    parse_choice,
    parse_yes_no,
    pick_one,
    structured,
    yes_log_odds,
)
from kgagents.llm.structured import LOG_ODDS_LIMIT, OPTION_FLOOR
from tests.scripted_chat import ScriptedChatModel, ScriptExhaustedError


class Match(BaseModel):
    same: bool
    confidence: float
    reason: str


ASK = [{"role": "user", "content": "Are Paper and Article the same concept?"}]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here it is:\n```json\n{"a": {"b": [1, 2]}}\n```\nHope that helps.', {"a": {"b": [1, 2]}}),
        ('{not json} then {"a": "x{y}"}', {"a": "x{y}"}),
        ('[1, 2] and {"a": null}', {"a": None}),
    ],
)
def test_extract_json_finds_the_first_object(text: str, expected: dict) -> None:
    assert extract_json(text) == expected


def test_extract_json_without_object_raises() -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        extract_json("I think they are the same.")


def test_structured_scripted_accepts_chatter_and_fences() -> None:
    chat = ScriptedChatModel(['Answer:\n```json\n{"same": true, "confidence": 0.9, "reason": "synonyms"}\n```'])
    result = structured(chat, ASK, Match, purpose="match")
    assert result == Match(same=True, confidence=0.9, reason="synonyms")
    call = chat.calls[0]
    assert call["purpose"] == "match"
    assert call["json_schema"] == Match.model_json_schema()
    assert '"confidence"' in call["messages"][-1]["content"]  # the schema is in the prompt
    assert call["messages"][-1]["content"].startswith(ASK[0]["content"])


def test_structured_scripted_one_repair_shows_output_and_error() -> None:
    bad = '{"same": true, "reason": "synonyms"}'
    chat = ScriptedChatModel([bad, '{"same": true, "confidence": 0.8, "reason": "synonyms"}'])
    assert structured(chat, ASK, Match, purpose="match").confidence == 0.8
    repair = chat.calls[1]
    assert repair["purpose"] == "match:repair"
    assert repair["messages"][-2] == {"role": "assistant", "content": bad}
    assert "confidence" in repair["messages"][-1]["content"]
    assert "Field required" in repair["messages"][-1]["content"]


def test_structured_scripted_fails_after_exactly_one_repair() -> None:
    chat = ScriptedChatModel(["no idea", '{"same": "perhaps"}', '{"same": true, "confidence": 1, "reason": "x"}'])
    with pytest.raises(StructuredOutputError, match="Match even after a repair retry"):
        structured(chat, ASK, Match, purpose="match")
    assert chat.remaining == 1
    assert "no JSON object" in chat.calls[1]["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes, both name a publication.", (True, "both name a publication.")),
        ("no - a reviewer is a person", (False, "a reviewer is a person")),
        ("**Yes**", (True, "")),
        ("Answer: No. Different things.", (False, "Different things.")),
        ("The answer is yes because they are synonyms", (True, "because they are synonyms")),
        ("TRUE", (True, "")),
        ("Not really.", None),
        ("Yesterday they were the same", None),
        ("I think yes", None),
        ('{"answer": "no", "reason": "a hotel is a place"}', (False, "a hotel is a place")),
        ('```json\n{"answer": "yes"}\n```', (True, "")),
        ('{"answer": "maybe"}', None),
    ],
)
def test_parse_yes_no(text: str, expected: tuple[bool, str] | None) -> None:
    assert parse_yes_no(text) == expected


def test_ask_yes_no_scripted_first_reply() -> None:
    chat = ScriptedChatModel(["Yes. Both are publications."])
    assert ask_yes_no(chat, "Is 'Paper' the same concept as 'Article'?", purpose="validate") == (
        True, "Both are publications.")
    call = chat.calls[0]
    assert '"answer": "yes" or "no"' in call["messages"][-1]["content"]
    # constrained where the endpoint can: the answer is one of two words, not the first word of the prompt
    assert call["json_schema"]["properties"]["answer"]["enum"] == ["yes", "no"]


def test_ask_yes_no_takes_the_constrained_object() -> None:
    chat = ScriptedChatModel(['{"answer": "no", "reason": "a conference is an event, a hotel a place"}'])
    assert ask_yes_no(chat, "Is 'Conference' the same concept as 'Hotel'?", purpose="validate") == (
        False, "a conference is an event, a hotel a place")


def test_ask_yes_no_scripted_repair_then_answer() -> None:
    chat = ScriptedChatModel(["They are related.", "No, a chair is a role."])
    assert ask_yes_no(chat, "Is 'Chair' the same as 'Conference'?", purpose="validate") == (
        False, "a chair is a role.")
    assert chat.calls[1]["purpose"] == "validate:repair"
    assert chat.calls[1]["messages"][-2]["content"] == "They are related."


def test_ask_yes_no_scripted_gives_up_after_one_repair() -> None:
    chat = ScriptedChatModel(["Hmm.", "Maybe.", "yes"])
    with pytest.raises(StructuredOutputError, match="did not answer yes or no"):
        ask_yes_no(chat, "Is it?", purpose="validate")
    assert chat.remaining == 1


OPTIONS = ["Person", "Person name", "Article", "2020"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", "Article"),
        ("option 2", "Person name"),
        ("Option 1.", "Person"),
        ("The answer is 3", "Article"),
        ("The correct option is 2. Person name, as it names a person.", "Person name"),
        ("#2", "Person name"),
        ("article", "Article"),
        ('"Person name"', "Person name"),
        ("2020", "2020"),
        ("I would pick Article here.", "Article"),
        ("Person name, clearly", "Person name"),  # "Person" is inside "Person name": not a second mention
        ("Either Person or Article", None),
        ("7", None),
        ("banana", None),
        ("", None),
    ],
)
def test_parse_choice(text: str, expected: str | None) -> None:
    assert parse_choice(text, OPTIONS) == expected


def test_pick_one_scripted_lists_numbered_options() -> None:
    chat = ScriptedChatModel(["2"])
    assert pick_one(chat, "Which is a publication?", ["Reviewer", "Paper"], purpose="pick") == "Paper"
    prompt = chat.calls[0]["messages"][-1]["content"]
    assert "1. Reviewer\n2. Paper" in prompt


def test_pick_one_constrains_the_number_to_the_options() -> None:
    chat = ScriptedChatModel(['{"option": 3}'])
    assert pick_one(chat, "Which is a date?", ["Reviewer", "Paper", "Deadline"], purpose="pick") == "Deadline"
    assert chat.calls[0]["json_schema"]["properties"]["option"]["enum"] == [1, 2, 3]


def test_pick_one_repairs_a_number_out_of_range() -> None:
    chat = ScriptedChatModel(['{"option": 4}', '{"option": 2}'])
    assert pick_one(chat, "Which is a publication?", ["Reviewer", "Paper"], purpose="pick") == "Paper"
    assert chat.calls[1]["purpose"] == "pick:repair"


def test_pick_one_scripted_repair_then_answer() -> None:
    chat = ScriptedChatModel(["Hard to say.", "Option 1"])
    assert pick_one(chat, "Which is a person?", ["Reviewer", "Paper"], purpose="pick") == "Reviewer"
    assert chat.calls[1]["purpose"] == "pick:repair"


def test_pick_one_scripted_none_after_failed_repair() -> None:
    chat = ScriptedChatModel(["Hard to say.", "Both, really: Reviewer and Paper."])
    assert pick_one(chat, "Which is a person?", ["Reviewer", "Paper"], purpose="pick") is None
    assert chat.remaining == 0


def test_scripted_model_raises_when_the_script_runs_out() -> None:
    chat = ScriptedChatModel([lambda messages: f"echo {messages[-1]['content']}"])
    assert chat.complete([{"role": "user", "content": "a b"}], purpose="t").text == "echo a b"
    with pytest.raises(ScriptExhaustedError):
        chat.complete([{"role": "user", "content": "again"}], purpose="t")


ASK = [{"role": "user", "content": "Is Paris in France?"}]


@pytest.mark.parametrize(("logprobs", "text", "expected"), [
    ({"Yes": math.log(0.6), " yes": math.log(0.15), "No": math.log(0.25)}, "Yes", math.log(0.75 / 0.25)),  # summed
    ({"No": math.log(0.9), "Yes": math.log(0.1)}, "No", math.log(0.1 / 0.9)),
    ({"Yes": 0.0}, "Yes", LOG_ODDS_LIMIT),                  # certain: clipped
    (None, "no, it is not", -1.0),                          # no log-probabilities: the text's answer
    (None, "Maybe", 0.0),                                   # neither: no evidence
    ({"Maybe": -0.1}, "Maybe", 0.0),                        # no yes/no among the alternatives, nor in the text
])
def test_yes_log_odds_reads_the_first_tokens_alternatives_else_the_text(
        logprobs: dict[str, float] | None, text: str, expected: float) -> None:
    chat = ScriptedChatModel([text], logprobs=(lambda _: logprobs) if logprobs is not None else None)
    assert yes_log_odds(chat, ASK, purpose="test") == pytest.approx(expected, abs=1e-6)
    assert chat.calls[0]["max_tokens"] == 1


FLOOR = math.log(OPTION_FLOOR)


@pytest.mark.parametrize(("logprobs", "text", "expected"), [
    ({"A": math.log(0.5), " a": math.log(0.2), "C": math.log(0.3), "D": 0.0},  # summed; D is no option here
     "A", [math.log(0.7 + OPTION_FLOOR), FLOOR, math.log(0.3 + OPTION_FLOOR)]),
    (None, "B. the second", [FLOOR, math.log(1 + OPTION_FLOOR), FLOOR]),  # no log-probabilities: the text's letter
    (None, "none of them", [0.0, 0.0, 0.0]),                             # no option named: no evidence
    ({"Z": -0.1}, "Z", [0.0, 0.0, 0.0]),                                  # a letter beyond the options
])
def test_option_log_probs_reads_the_letters_among_the_first_tokens_alternatives_else_the_text(
        logprobs: dict[str, float] | None, text: str, expected: list[float]) -> None:
    chat = ScriptedChatModel([text], logprobs=(lambda _: logprobs) if logprobs is not None else None)
    assert option_log_probs(chat, ASK, 3, purpose="test") == pytest.approx(expected, abs=1e-6)
    assert chat.calls[0]["max_tokens"] == 1


def test_option_log_probs_refuses_more_options_than_letters() -> None:
    with pytest.raises(ValueError, match="between 1 and 26 options"):
        option_log_probs(ScriptedChatModel([]), ASK, 27, purpose="test")
