"""Word stems and whether a name comes from the text (pure functions, no server)."""

from __future__ import annotations

import pytest

from kgagents.agent.extraction.words import in_text, stems

TEXT = "Akeem Dent, born on 27th September 1987 in Atlanta, Georgia (U.S.), later lived in Zürich and Москва."


@pytest.mark.parametrize("name", ["1987-09-27", "Atlanta, Georgia", "Akeem Dent", "U.S.", "Zürich", "Москва",
                                  "Georgians"])
def test_a_name_sharing_a_word_stem_with_the_text_is_in_it(name: str) -> None:
    assert in_text(name, TEXT)


@pytest.mark.parametrize("name", ["Thurleigh", "E4", "text", "MusicalWork", "16800", "", "of the"])
def test_a_name_sharing_no_word_with_the_text_is_not(name: str) -> None:
    assert not in_text(name, TEXT)


def test_stems_split_camel_case_and_keep_any_script() -> None:
    assert stems("hasTargetTemperature", 4) == {"targe", "tempe"}
    assert stems("Löwenbräu Straße") == {"löwen", "straß"}
