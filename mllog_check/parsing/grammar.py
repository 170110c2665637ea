"""The envelope grammar (grammars/mllog.lark), loaded once, and its error explanations."""

from __future__ import annotations

import re
from functools import cache

from ..errors import ReadError
from ..records import Generation
from ..values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from lark import Lark


class Envelope(Value):
    """What the grammar finds in one record: everything but the JSON inside the payload."""

    __slots__ = ("generation", "payload", "payload_offset", "seconds", "key", "benchmark", "source")

    def __init__(
        self,
        generation: Generation,
        payload: str | None,
        payload_offset: int,  # offset of the payload in the parsed text (len(text) when absent)
        seconds: str | None = None,  # v0.5 and v0.6 timestamps, as written
        key: str | None = None,  # v0.5 and v0.6 keys
        benchmark: str | None = None,  # v0.5
        source: str | None = None,  # v0.5 "(file:line)"
    ) -> None:
        self.generation = generation
        self.payload = payload
        self.payload_offset = payload_offset
        self.seconds = seconds
        self.key = key
        self.benchmark = benchmark
        self.source = source


class EnvelopeError(ReadError):
    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


@cache
def parser() -> Lark:
    """The LALR parser for grammars/mllog.lark; built on first use (lark imports lazily)."""
    from lark import Lark

    return Lark.open_from_package(
        "mllog_check.grammars",
        "mllog.lark",
        parser="lalr",
        propagate_positions=True,
        cache=False,
    )


# Labelled bad examples: an error in a real line is explained by the example whose
# parser state it matches (the technique of lark's own error-reporting example).
BAD_EXAMPLES: dict[str, list[str]] = {
    "the :::MLLOG marker must be followed by a space and a JSON object": [
        ':::MLLOG{"key": "x"}',
        ":::MLLOG",
    ],
    "the timestamp (seconds) is missing or not a number": [
        ':::MLL submission_org: {"value": 1}',
        ':::MLL abc submission_org: {"value": 1}',
        ":::MLPv0.5.0 resnet (x.py:1) run_start",
        ":::MLPv0.5.0 resnet abc (x.py:1) run_start",
    ],
    "the key is missing after the timestamp": [
        ':::MLL 1560881700.860 : {"value": 1}',
        ":::MLPv0.5.0 resnet 1543785258.9 (x.py:1)",
        ":::MLPv0.5.0 resnet 1543785258.9 (x.py:1) : 1",
    ],
    "the key must be followed by ':' and a JSON payload": [
        ':::MLL 1560881700.860 submission_org {"value": 1}',
        ":::MLL 1560881700.860 submission_org:",
        ":::MLL 1560881700.860 submission_org",
    ],
    "the benchmark name is missing after the :::MLPv0.5.0 marker": [
        ":::MLPv0.5.0 1543785258.9 (x.py:1) run_start",
        ":::MLPv0.5.0",
    ],
    "the source location '(file:line)' is missing or malformed": [
        ":::MLPv0.5.0 resnet 1543785258.9 run_start",
        ":::MLPv0.5.0 resnet 1543785258.9 (x.py) run_start",
        ":::MLPv0.5.0 resnet 1543785258.9",
    ],
    "unexpected text after the key (expected ': value')": [
        ":::MLPv0.5.0 resnet 1543785258.9 (x.py:1) run_start extra",
    ],
}


def _terminal_value(tree: object, name: str) -> str | None:
    from lark import Token, Tree

    assert isinstance(tree, Tree)
    for child in tree.children:
        if isinstance(child, Token) and child.type == name:
            return str(child)
        if isinstance(child, Tree) and child.data == "payload" and name == "PAYLOAD":
            return str(child.children[0])
    return None


def _payload_offset(tree: object, default: int) -> int:
    from lark import Tree

    assert isinstance(tree, Tree)
    for child in tree.children:
        if isinstance(child, Tree) and child.data == "payload":
            return int(child.meta.start_pos)
    return default


def parse_envelope(text: str) -> Envelope:
    """Parse one record's text (from its marker on) or raise EnvelopeError."""
    from lark import Tree
    from lark.exceptions import UnexpectedInput

    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        colour = ansi_colour(text)
        reason = explain(err, text) if colour is None else colour
        raise EnvelopeError(reason, _error_offset(err, text)) from None
    record = tree.children[0]
    assert isinstance(record, Tree)
    kind = str(record.data)
    generation = {
        "mllog_record": Generation.MLLOG,
        "mll_record": Generation.MLL,
        "mlp_record": Generation.MLP,
    }[kind]
    return Envelope(
        generation=generation,
        payload=_terminal_value(record, "PAYLOAD"),
        payload_offset=_payload_offset(record, len(text)),
        seconds=_terminal_value(record, "SECONDS"),
        key=_terminal_value(record, "KEY"),
        benchmark=_terminal_value(record, "BENCHMARK"),
        source=_terminal_value(record, "SOURCE"),
    )


def _error_offset(err: Exception, text: str) -> int:
    pos = getattr(err, "pos_in_stream", None)
    if isinstance(pos, int) and pos >= 0:
        return pos
    return len(text)  # unexpected end of input


# A terminal colour code (ESC [ params m) right after the marker: logs captured from a
# coloured console. Said by name with the way to strip it (the official checker cannot
# read such a line either).
_ANSI = re.compile(r"^:::\w+(?:v0\.5\.0)?\s*(\x1b\[[0-9;]*m)")
ANSI_STRIP = "sed 's/\\x1b\\[[0-9;]*m//g' LOG > CLEAN"
ANSI_PREFIX = "an ANSI colour code"
ANSI_REASON = (
    ANSI_PREFIX + " ({code}) follows the :::MLLOG marker: the log was written with "
    f"terminal colours; strip them ({ANSI_STRIP}) and check the copy"
)


ANSI_AFTER = (
    ANSI_PREFIX + " ({code}) follows the JSON payload: the log was written with terminal "
    f"colours; strip them ({ANSI_STRIP}) and check the copy"
)


def ansi_colour(text: str) -> str | None:
    """The reason for a marker followed by a colour code (``ESC[0m``), else None."""
    found = _ANSI.match(text)
    if found is None:
        return None
    return ANSI_REASON.format(code="ESC" + found.group(1)[1:])


def explain(err: Exception, text: str) -> str:
    """A reason a person can act on, from the labelled examples; else lark's expectation."""
    from lark.exceptions import UnexpectedInput

    assert isinstance(err, UnexpectedInput)
    key = _example_key(err)
    label: str | None
    if key in _LABELS:
        label = _LABELS[key]
    else:
        label = err.match_examples(parser().parse, BAD_EXAMPLES, use_accepts=True)
        if key is not None and len(_LABELS) < _LABELS_KEPT:
            _LABELS[key] = label
    if label:
        return str(label)
    expected = sorted(getattr(err, "expected", None) or getattr(err, "allowed", None) or [])
    if expected:
        return "unexpected text; expected " + ", ".join(expected)
    return "unexpected text"


# match_examples parses every labelled example again for each error (1.5 ms a broken
# line); its answer depends only on what _example_key holds, so it is kept per key.
_LABELS: dict[tuple[object, ...], str | None] = {}
_LABELS_KEPT = 4096  # a bound whatever a log holds: past it, labels are matched each time


def _example_key(err: object) -> tuple[object, ...] | None:
    """What lark's ``match_examples`` reads of an error: its class, parser state (an LALR
    state by its whole stack, as fine as lark's equality or finer), the tokens it accepts
    and the token it met (type and text: lark's Token equality); None when one of them
    cannot be a key."""
    token = getattr(err, "token", None)
    accepts = getattr(err, "accepts", None)
    state = getattr(err, "state", None)
    stack = getattr(state, "state_stack", None)
    if stack is not None:  # an LALR ParserState, which lark compares by its stack
        state = ("stack", tuple(stack))
    key = (
        type(err).__name__,
        state,
        None if accepts is None else frozenset(accepts),
        None if token is None else (getattr(token, "type", None), str(token)),
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key
