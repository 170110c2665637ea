"""Hypothesis strategies for log lines of the three generations (shared by parser tests).

Each strategy draws a ``Line``: the text to write and the Record fields it must parse
back to (everything but path, line and column, which depend on where it is written).
"""

from __future__ import annotations

import json
import string
from typing import Any, NamedTuple

from hypothesis import assume
from hypothesis import strategies as st

from mllog_check.records import Generation

MARKER = ":::ML"


class Line(NamedTuple):
    text: str  # from the marker to the end of the line
    generation: Generation
    namespace: Any
    timestamp_ms: float
    event_type: str | None
    key: str
    value: Any
    metadata: dict[str, Any]


# JSON values that both decoders read identically (finite floats, 64-bit ints).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
metadata = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
_FIRST = string.ascii_letters + "_"
identifiers = st.builds(
    str.__add__,
    st.sampled_from(_FIRST),
    st.text(_FIRST + string.digits + ".-", max_size=20),
)
seconds = st.builds(
    lambda whole, frac: f"{whole}.{frac}" if frac is not None else str(whole),
    st.integers(min_value=0, max_value=2_000_000_000),
    st.none() | st.text(string.digits, max_size=9),
)
spaces = st.sampled_from([" ", "  ", "\t", " \t"])
opt_spaces = st.sampled_from(["", " ", "\t"])


def _dump(obj: Any, compact: bool, ascii_only: bool) -> str:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(obj, separators=separators, ensure_ascii=ascii_only)


@st.composite
def mllog_lines(draw: st.DrawFn) -> Line:
    """v0.7+: namespace of any type, event_type sometimes missing, int or float time_ms."""
    fields: dict[str, Any] = {
        "namespace": draw(st.one_of(st.just(""), st.text(max_size=6), st.integers(0, 9))),
        "time_ms": draw(
            st.integers(0, 2**53) | st.floats(0, 1e13, allow_nan=False, allow_infinity=False)
        ),
        "key": draw(identifiers | st.text(max_size=10)),
        "value": draw(json_values),
        "metadata": draw(metadata),
    }
    if draw(st.booleans()):
        fields["event_type"] = draw(st.sampled_from(["POINT_IN_TIME", "INTERVAL_START"]))
    order = draw(st.permutations(sorted(fields)))
    payload = _dump({k: fields[k] for k in order}, draw(st.booleans()), draw(st.booleans()))
    assume(MARKER not in payload)  # a marker inside the JSON is the last marker (tested apart)
    return Line(
        ":::MLLOG " + payload,
        Generation.MLLOG,
        fields["namespace"],
        fields["time_ms"],
        fields.get("event_type"),
        fields["key"],
        fields["value"],
        fields["metadata"],
    )


@st.composite
def mll_lines(draw: st.DrawFn) -> Line:
    """v0.6: ``:::MLL <seconds> <key>: {"metadata": ..., "value": ...}``."""
    secs, key = draw(seconds), draw(identifiers)
    meta, value = draw(metadata), draw(json_values)
    payload = _dump({"metadata": meta, "value": value}, draw(st.booleans()), True)
    assume(MARKER not in payload)
    text = f":::MLL{draw(spaces)}{secs}{draw(spaces)}{key}{draw(opt_spaces)}:{draw(opt_spaces)}"
    return Line(text + payload, Generation.MLL, None, float(secs) * 1000.0, None, key, value, meta)


# v0.5 bare words: not JSON, no brackets or quotes (e.g. "adam", "sgd_momentum").
bare_words = identifiers.filter(
    lambda w: w not in ("true", "false", "null", "Infinity", "NaN") and not w[0].isdigit()
)


@st.composite
def mlp_lines(draw: st.DrawFn) -> Line:
    """v0.5: ``:::MLPv0.5.0 <bench> <seconds> (<file>:<line>) <key>[: <value>]``."""
    bench, secs, key = draw(identifiers), draw(seconds), draw(identifiers)
    file = draw(st.text(string.ascii_letters + string.digits + "_./<>-", min_size=1, max_size=20))
    lineno = draw(st.integers(0, 99999))
    text = f":::MLPv0.5.0{draw(spaces)}{bench}{draw(spaces)}{secs}{draw(spaces)}({file}:{lineno})"
    text += f"{draw(spaces)}{key}"
    kind = draw(st.sampled_from(["none", "json", "word"]))
    value: Any = None
    if kind == "json":
        value = draw(json_values)
        text += f"{draw(opt_spaces)}:{draw(opt_spaces)}{_dump(value, draw(st.booleans()), True)}"
    elif kind == "word":
        value = draw(bare_words)
        text += f"{draw(opt_spaces)}:{draw(opt_spaces)}{value}"
    assume(MARKER not in text[1:])
    meta = {"file": file, "lineno": lineno}
    return Line(text, Generation.MLP, bench, float(secs) * 1000.0, None, key, value, meta)


any_line = st.one_of(mllog_lines(), mll_lines(), mlp_lines())

REAL_PREFIXES = [
    "",
    "0: ",
    "[1] ",
    "[1,0]<stdout>:",
    "I0615 12:00:00.000000 140 mllog.py:45] ",
    "100%|██████████| 10/10 [00:01<00:00,  9.5it/s]",
    "device: cuda:0 n_gpu: 8, distributed training: True, ",
    "\x1b[0m\x1b[32m",
    "kk\x08\x08\x08",
    "q:q",
    "::",
]


def _no_marker(text: str) -> bool:
    return MARKER not in text and "\n" not in text and "\r" not in text


# Text without a marker, newline or CR (a CR starts a new line for the parser).
free_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30
).filter(_no_marker)
prefixes = st.one_of(st.sampled_from(REAL_PREFIXES), free_text)
noise_lines = st.one_of(
    free_text,
    st.sampled_from(
        ["", "Epoch 1/90", "MLL", ":::", ":::M", "MLLOG {}", "Traceback (most recent)"]
    ),
)
