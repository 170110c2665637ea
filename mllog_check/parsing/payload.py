"""From a parsed envelope and its JSON payload to a Record, or a Problem saying why not."""

from __future__ import annotations

import json
import math
import re

from .. import syntax_codes as rules
from ..catalog import RuleInfo
from ..errors import ReadError
from ..problems import Problem, shorten
from ..records import Generation, Record
from .decoders import MAX_DEPTH
from .grammar import ANSI_AFTER, Envelope

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any


class LineError(ReadError):
    """A marker line that cannot become a record (the syntax rule it breaks); offset is
    within the record text."""

    def __init__(self, rule: RuleInfo, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason
        self.offset = offset


_NONSTANDARD = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


class _ConstantSpy:
    """parse_constant hook that notes the use of Infinity/NaN (one decoder, built once)."""

    used = False

    def __call__(self, name: str) -> float:
        self.used = True
        return _NONSTANDARD[name]


_SPY = _ConstantSpy()
_DECODER = json.JSONDecoder(parse_constant=_SPY)


def decode_json(text: str, offset: int) -> tuple[Any, bool]:
    """Decode a payload as Python's json does (the official tools' decoder).

    Returns (value, used_nonstandard_constants). Raises LineError with the column
    of the first bad character and a reason.
    """
    _SPY.used = False
    deep = _too_deep(text)
    if deep >= 0:
        reason = f"nested more than {MAX_DEPTH} levels deep (arrays and objects): not read"
        raise LineError(rules.NESTED_TOO_DEEP, reason, offset + deep)
    try:
        return _DECODER.decode(text), _SPY.used
    except json.JSONDecodeError as err:
        raise LineError(rules.BAD_JSON, _json_reason(err, text), offset + err.pos) from None
    except RecursionError:
        raise LineError(rules.BAD_JSON, "JSON nested too deeply", offset) from None
    except ValueError:  # Python's int/str limit (sys.get_int_max_str_digits): 4,300 digits
        reason = "a number with more digits than Python converts (4,300)"
        raise LineError(rules.BAD_JSON, reason, offset + _long_digits(text)) from None


# A JSON string (escapes skipped whole) or a bracket.
_TOKENS = r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]'


def _too_deep(text: str) -> int:
    """Where the bracket opening level MAX_DEPTH + 1 stands, -1 when none does."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return -1
    depth = 0
    for match in re.finditer(_TOKENS, text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return -1


def _long_digits(text: str) -> int:
    """Where the first run of more than 4,300 digits starts (0 when not found)."""
    run = 0
    for i, char in enumerate(text):
        run = run + 1 if char.isdigit() else 0
        if run > 4300:
            return i - run + 1
    return 0


def _json_reason(err: json.JSONDecodeError, text: str) -> str:
    stripped = text.rstrip()
    if err.pos < len(text) and text[err.pos] == "\x00":
        return "a NUL byte inside the JSON payload"
    if err.pos >= len(stripped):
        return "truncated JSON (the line ends inside the payload): " + err.msg.lower()
    if err.msg.startswith("Extra data"):
        colour = re.match(r"\s*(\x1b\[[0-9;]*m)", text[err.pos :])
        if colour is not None:  # a coloured console's reset code (grammar.ansi_colour)
            return ANSI_AFTER.format(code="ESC" + colour.group(1)[1:])
        return "extra text after the JSON payload"
    if err.msg.startswith("Unterminated string"):
        return "truncated JSON: unterminated string"
    return "invalid JSON: " + err.msg.lower()


def build_record(
    env: Envelope, path: str, line: int, column: int, offset: int, warn: list[Problem]
) -> Record:
    """Check the fields a generation requires and make the Record.

    ``offset`` is where the record text starts within the original line (for columns);
    warnings are appended to ``warn``.
    """
    payload_col = offset + env.payload_offset
    if env.generation is Generation.MLLOG:
        assert env.payload is not None
        data, nonstandard = decode_json(env.payload, payload_col)
        if nonstandard:
            warn.append(_warn(rules.NONSTANDARD_JSON, path, line, column, env.payload))
        return _mllog_record(data, path, line, column, payload_col, env.payload, warn)
    if env.generation is Generation.MLL:
        assert env.payload is not None
        data, nonstandard = decode_json(env.payload, payload_col)
        if nonstandard:
            warn.append(_warn(rules.NONSTANDARD_JSON, path, line, column, env.payload))
        if isinstance(data, dict) and "value" in data:
            value, metadata = data["value"], data.get("metadata")
        else:
            value, metadata = data, {}
        return Record(
            path,
            line,
            column,
            Generation.MLL,
            None,
            seconds_to_ms(env.seconds),
            None,
            env.key or "",
            value,
            metadata if isinstance(metadata, dict) else {},
        )
    return _mlp_record(env, path, line, column, payload_col, warn)


def seconds_to_ms(seconds: str | None) -> float:
    return float(seconds or 0) * 1000.0


def _mlp_record(
    env: Envelope, path: str, line: int, column: int, payload_col: int, warn: list[Problem]
) -> Record:
    value: Any = None
    if env.payload is not None:
        value = mlp_value(env.payload, payload_col, path, line, column, warn)
    source = (env.source or "()")[1:-1]
    file, _, lineno = source.rpartition(":")
    metadata = {"file": file, "lineno": int(lineno) if lineno.isdigit() else lineno}
    return Record(
        path,
        line,
        column,
        Generation.MLP,
        env.benchmark,
        seconds_to_ms(env.seconds),
        None,
        env.key or "",
        value,
        metadata,
    )


def mlp_value(
    text: str, payload_col: int, path: str, line: int, column: int, warn: list[Problem]
) -> Any:
    """v0.5 values: JSON, or a bare word kept as a string."""
    text = text.strip()
    if text[:1] in ("{", "[", '"'):
        value, nonstandard = decode_json(text, payload_col)
        if nonstandard:
            warn.append(_warn(rules.NONSTANDARD_JSON, path, line, column, text))
        return value
    try:
        value, nonstandard = decode_json(text, payload_col)
    except LineError:
        return text  # a bare word, e.g. "adam"
    if nonstandard:
        warn.append(_warn(rules.NONSTANDARD_JSON, path, line, column, text))
    return value


def _mllog_record(
    data: Any,
    path: str,
    line: int,
    column: int,
    payload_col: int,
    text: str,
    warn: list[Problem],
) -> Record:
    if not isinstance(data, dict):
        raise LineError(
            rules.NOT_AN_OBJECT,
            f"the payload is a JSON {type(data).__name__}, not an object",
            payload_col,
        )
    missing = [f for f in ("key", "time_ms") if f not in data]
    if missing:
        reason = "the record has no " + " and no ".join(f"'{m}'" for m in missing)
        if "time_ms" in missing and "time_s" in data:
            # v0.7 Alibaba logs write seconds as "time_s"; the official parser raises
            # KeyError: 'time_ms' on the whole file. Not converted: the field is not MLLOG.
            reason += " (it has 'time_s', seconds: the MLLOG format requires 'time_ms')"
        raise LineError(rules.MISSING_FIELD, reason, payload_col)
    key = data["key"]
    if not isinstance(key, str):
        raise LineError(rules.BAD_FIELD_TYPE, f"'key' must be a string, not {key!r}", payload_col)
    time_ms = data["time_ms"]
    if isinstance(time_ms, bool) or not isinstance(time_ms, int | float):
        raw = time_ms
        time_ms = _time_from_string(raw, payload_col)
        message = f"'time_ms' is the string {raw!r}; read as {time_ms!r}"
        warn.append(_warn(rules.TIME_AS_STRING, path, line, column, text, message))
    elif isinstance(time_ms, int) and time_ms.bit_length() > 1000:
        try:  # every time is compared and subtracted as a float (the official tools too)
            float(time_ms)
        except OverflowError:
            reason = "'time_ms' is an integer beyond the range of a float"
            raise LineError(rules.BAD_FIELD_TYPE, reason, payload_col) from None
    absent = [f for f in ("value", "metadata") if f not in data]
    if absent:
        warn.append(
            _warn(
                rules.MISSING_VALUE_OR_METADATA,
                path,
                line,
                column,
                text,
                "the record has no "
                + " and no ".join(f"'{a}'" for a in absent)
                + " (read as null/{}; the official parser crashes here)",
            )
        )
    metadata = data.get("metadata")
    return Record(
        path,
        line,
        column,
        Generation.MLLOG,
        data.get("namespace"),
        time_ms,
        data.get("event_type"),
        key,
        data.get("value"),
        metadata if isinstance(metadata, dict) else {},
    )


def _time_from_string(value: Any, offset: int) -> float:
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    raise LineError(rules.BAD_FIELD_TYPE, f"'time_ms' must be a number, not {value!r}", offset)


def _warn(
    rule: RuleInfo, path: str, line: int, column: int, text: str, message: str | None = None
) -> Problem:
    return rule.problem(path, message or rule.summary, line, column, text=shorten(text))


def line_problem(err: LineError, path: str, line: int, column: int, text: str) -> Problem:
    return err.rule.problem(path, err.reason, line, column, text=shorten(text))
