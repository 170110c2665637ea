"""The fast paths of the output guards (mllog_check/safety.py) give what the plain
definitions give: a CSV row is each cell guarded, a JSON document's escapes are those
of translating every character, a text without a look-alike letter is kept as it is.
The alphabet mixes ASCII, the characters each guard acts on, and Cyrillic and Greek
look-alikes, so that every branch is drawn."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mllog_check import safety
from mllog_check.confusables import CONFUSABLE, is_latin

_MARKS = "\t\n\r\x1b\x7f\x85\u2028\u202e\u200b…×µ=+-@"
_ALPHABET = st.sampled_from(
    list("aAMD 01.e,_") + list(_MARKS) + sorted(CONFUSABLE)[:40] + ["Ж", "中", "\U0001f600"]
)
_TEXT = st.text(_ALPHABET, max_size=60)
_CELL = st.one_of(_TEXT, st.integers(), st.floats(allow_nan=True), st.none(), st.booleans())


def _translated(document: str) -> str:
    """json_text by its definition: every character of a document with any non-ASCII
    one through the escape table (an ASCII document is JSON's own escaping already)."""
    safety.json_text("é")  # builds the table
    return document if document.isascii() else document.translate(safety._JSON)


def _marked_slowly(text: str) -> str:
    out: list[str] = []
    word: list[str] = []
    for char in [*text, " "]:
        if char.isalpha():
            word.append(char)
            continue
        if word:
            mixed = any(is_latin(c) for c in word) and any(c in CONFUSABLE for c in word)
            out.extend(safety._escape(ord(c)) if mixed and c in CONFUSABLE else c for c in word)
            word = []
        out.append(char)
    return "".join(out[:-1])


@settings(max_examples=300)
@given(st.lists(_CELL, max_size=8))
def test_a_row_is_each_cell_guarded(row: list[Any]) -> None:
    assert safety.csv_row(row) == [safety.csv_cell(v) for v in row]


@settings(max_examples=300)
@given(_TEXT)
def test_json_escapes_are_the_tables(document: str) -> None:
    assert safety.json_text(document) == _translated(document)


@settings(max_examples=300)
@given(_TEXT)
def test_lookalikes_marked_as_defined(text: str) -> None:
    assert safety._mark_lookalikes(text) == _marked_slowly(text)
