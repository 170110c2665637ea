"""The fast path's JSON decoders: orjson, or Python's json made to refuse what orjson
refuses, for small inputs.

Importing orjson costs a short check more than decoding its log (orjson loads datetime,
uuid, dataclasses and json on import), so until a process has decoded ``SMALL`` bytes
(one big log, or many logs) blocks are decoded by ``strict_loads``; then orjson is
loaded and decodes everything. Both are only the fast path: a payload either one
refuses goes to the grammar path (Python's json, as the official tools decode), which
is the reference. ``strict_loads`` refuses at least what orjson refuses (Infinity/NaN,
numbers that overflow a double, lone surrogates, invalid UTF-8), and both refuse
integers that orjson would turn into floats, so that whatever they accept equals the
grammar path's value. ``tests/test_fastpath.py`` runs the equivalence tests with each decoder.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

SMALL = 256 * 1024

# The error both raise (orjson.JSONDecodeError subclasses json.JSONDecodeError).
DecodeError = json.JSONDecodeError

# Payloads the fast decoders send to the grammar path (a refusal is always safe: the
# grammar path is the reference). orjson turns integers beyond 64 bits into floats, where
# json keeps them exact: an integer of 19 digits or more is refused by both (not the
# long fractions of real logs' floats), found on the bytes' shapes (bytes.translate,
# then ``find``: C speed, a fraction of decoding), not by a regex over each payload.
# Python's json also accepts lone surrogate escapes and numbers that overflow to inf,
# which orjson refuses: a surrogate by a search where "\\u" occurs, an overflow by the
# decoder's own float hook (``_finite``). Not by an exponent's shape: digits, "e" and
# three digits also occur inside strings (system names XE9680, build hashes
# ...997e114...), which sent whole Dell and Google logs to the grammar path.
_SHAPES = bytes(
    ord("0") if 48 <= i <= 57 else ord("e") if i in b"eE" else i if i in b"+." else ord(" ")
    for i in range(256)
)  # digits -> "0", exponent marks -> "e", sign and point kept, the rest -> " "
_LONG_DIGITS = b"0" * 19
_DIGIT, _DOT = ord("0"), ord(".")
_SURROGATE = rb"\\u[dD][89abcdefABCDEF]"  # compiled (re's cache) only when "\\u" occurs


def _long_integer(shapes: bytes) -> bool:
    """A run of 19+ digits that is an integer: not a float's fraction, mantissa or digits
    before its point (a string's digits count too: refusing them only costs time)."""
    pos = shapes.find(_LONG_DIGITS)
    while pos != -1:
        start, end = pos, pos + len(_LONG_DIGITS)
        while start and shapes[start - 1] == _DIGIT:
            start -= 1
        while end < len(shapes) and shapes[end] == _DIGIT:
            end += 1
        fraction = start > 0 and shapes[start - 1] == _DOT
        mantissa = end < len(shapes) and shapes[end] in b".e"
        if not fraction and not mantissa:
            return True
        pos = shapes.find(_LONG_DIGITS, end)
    return False


def _strict_refuses(data: bytes) -> bool:
    shapes = data.translate(_SHAPES)
    return _long_integer(shapes) or (b"\\u" in data and re.search(_SURROGATE, data) is not None)


# How deep a payload may nest (arrays and objects, the payload itself the first level;
# docs/security.md, "Bounds"). Python's json and orjson accept about 1,000 levels, and
# every stage that walks a value recursively (messages, SARIF, the audit) then raised;
# real records nest two or three. A deeper payload is refused here, and the grammar
# path reports it (MLS021, payload.decode_json).
MAX_DEPTH = 64
_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def may_nest_beyond(data: bytes, depth: int = MAX_DEPTH) -> bool:
    """Whether ``data`` (one payload or many) may nest deeper than ``depth``: its
    brackets, innermost pairs removed ``depth`` times (C speed), leave some. Brackets in
    strings count too, and unbalanced ones say yes: a refusal only costs the slow path."""
    if data.count(b"[") + data.count(b"{") <= depth:
        return False
    shape = data.translate(_BRACKETS, _NOT_BRACKETS)
    for _ in range(depth):
        shorter = shape.replace(b"()", b"")
        if not shorter:
            return False
        if len(shorter) == len(shape):
            return True  # unbalanced (a bracket in a string): maybe
        shape = shorter
    return True


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    """A JSON number with a point or exponent, refused where it overflows a double (as
    orjson does; Python's json would give inf)."""
    value = float(text)
    if value - value != 0.0:  # inf (NaN cannot come from a JSON number)
        raise ValueError(f"{text} overflows a double")
    return value


_STRICT = json.JSONDecoder(parse_constant=_refuse, parse_float=_finite)


def strict_loads(data: bytes) -> Any:
    """json.loads of UTF-8 bytes, refusing what orjson refuses (DecodeError)."""
    if _strict_refuses(data) or may_nest_beyond(data):
        raise DecodeError("sent to the grammar path", "", 0)
    try:
        return _STRICT.decode(data.decode())
    except DecodeError:
        raise
    except (ValueError, RecursionError) as err:  # Infinity/NaN, bad UTF-8, nesting
        raise DecodeError(str(err), "", 0) from None


def _exact(orjson_loads: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def exact_loads(data: bytes) -> Any:
        """orjson.loads, refusing long digit runs (integers it would make floats)."""
        if _long_integer(data.translate(_SHAPES)) or may_nest_beyond(data):
            raise DecodeError("sent to the grammar path", "", 0)
        return orjson_loads(data)

    return exact_loads


def decode_each(
    loads: Callable[[bytes], Any], payloads: list[bytes], text: bytes
) -> list[Any] | None:
    """Each payload decoded alone by ``loads`` (a decoder of ``loads_for``), without
    Python-level work per payload; None when any payload is refused (then the caller
    decodes them one by one). ``text`` holds every payload, each apart from the next
    by a byte that is no digit (the lines they come from, joined by LF): looked at once
    for what the decoders refuse, where a refusal found outside a payload only costs the
    one-by-one path.

    One decoder call per payload, not one on a JSON array of them: a payload that is
    no JSON value alone (``1,2``, ``[1``) could pair with another in an array.
    """
    if may_nest_beyond(text):  # the payloads one by one: the deep one is refused
        return None
    if loads is strict_loads:
        if _strict_refuses(text):
            return None
        try:
            return list(map(_STRICT.decode, map(bytes.decode, payloads)))
        except (ValueError, RecursionError):  # DecodeError, Infinity/NaN, bad UTF-8
            return None
    if loads is not _orjson_exact or _orjson_raw is None:
        return None  # another decoder (a test's): one call per payload
    if _long_integer(text.translate(_SHAPES)):
        return None
    try:
        return list(map(_orjson_raw, payloads))
    except DecodeError:
        return None


_orjson_exact: Callable[[bytes], Any] | None = None
_orjson_raw: Callable[[bytes], Any] | None = None
_seen = 0  # bytes of blocks decoded in this process so far


def loads_for(size: int) -> Callable[[bytes], Any]:
    """The decoder for a block of ``size`` bytes: orjson once loaded, or once this process
    has decoded ``SMALL`` bytes (a big log, or many logs), else strict json."""
    global _orjson_exact, _orjson_raw, _seen
    if _orjson_exact is None:
        _seen += size
        if "orjson" not in sys.modules and _seen < SMALL:
            return strict_loads
        import orjson

        _orjson_raw = orjson.loads
        _orjson_exact = _exact(orjson.loads)
    return _orjson_exact
