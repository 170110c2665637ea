"""Relations between keys, as data: a tiny typed expression form, compiled to closures.

Newer official rule files compute a key's allowed value from other keys logged
earlier (``decay_steps == 1_200_000 - warmup_steps``). Here such a rule is a YAML
tree (schemas/rules/ruleset.schema.json ``$defs/expr`` and ``$defs/test``), turned
into nested closures once at ruleset load and never evaluated as code:

- a literal (number, string, boolean, null);
- ``{this: value}`` / ``{this: metadata.samples_count}``: the checked record's field;
- ``{last: KEY}``: the value of the latest earlier record of KEY; ``{count: KEY}``:
  how many records of KEY came earlier;
- ``{add|mul|min|max: [e, ...]}``, ``{sub|div|pow|mod: [e, e]}``, ``{ceil|floor|abs|int: e}``.

Tests: ``{eq|ne|lt|le|gt|ge: [e, e]}``, ``{all|any: [t, ...]}``, ``{not: t}``,
``{integer: e}`` (within 1e-5 of an integer, the official ``is_integer``).

Operators keep Python's meaning (the official files are Python): ``True == 1``, a
string compared with a number raises. Any failure to evaluate (a key not logged
yet, a type error, a division by zero) makes the test fail, as an exception in an
official CHECK does.
"""

from __future__ import annotations

import math
import operator

from ..errors import DataError
from ..records import Record

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .occurrences import Occurrences

    # What an expression sees: the record checked and the records seen so far, by key
    # (a count and the few records rules name: occurrences.py).
    Seen = dict[str, Occurrences]
    Expr = Callable[[Record, Seen], Any]
    Test = Callable[[Record, Seen], bool]
    # A test as a rule file writes it (one operator and its arguments: docs/rules.md).
    Node = dict[str, Any]


class Undefined(DataError):
    """An expression without a value (e.g. a key not logged before)."""


def _last(key: str) -> Expr:
    def last(rec: Record, seen: Seen) -> Any:
        found = seen.get(key)
        # The record itself is not "earlier": the one before it.
        earlier = found.before(rec) if found is not None else None
        if earlier is None:
            raise Undefined(f"no {key} logged before")
        return earlier.value

    return last


def _count(key: str) -> Expr:
    def count(rec: Record, seen: Seen) -> Any:
        found = seen.get(key)
        if found is None:
            return 0
        return found.count - (1 if found.last is rec else 0)

    return count


def _this(path: str) -> Expr:
    head, *rest = path.split(".")
    if head not in ("value", "metadata"):
        raise ValueError(f"{{this: {path}}} must start with value or metadata")

    def this(rec: Record, seen: Seen) -> Any:
        got: Any = rec.value if head == "value" else rec.metadata
        for part in rest:
            got = got[part]
        return got

    return this


def _fold(op: Callable[[Any, Any], Any], items: list[Expr]) -> Expr:
    def fold(rec: Record, seen: Seen) -> Any:
        result = items[0](rec, seen)
        for item in items[1:]:
            result = op(result, item(rec, seen))
        return result

    return fold


def _pair(op: Callable[[Any, Any], Any], items: list[Expr]) -> Expr:
    left, right = items
    return lambda rec, seen: op(left(rec, seen), right(rec, seen))


def _one(op: Callable[[Any], Any], item: Expr) -> Expr:
    return lambda rec, seen: op(item(rec, seen))


_FOLDS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "mul": operator.mul,
    "min": min,
    "max": max,
}
_PAIRS: dict[str, Callable[[Any, Any], Any]] = {
    "sub": operator.sub,
    "div": operator.truediv,
    "pow": operator.pow,
    "mod": operator.mod,
}
_ONES: dict[str, Callable[[Any], Any]] = {
    "ceil": math.ceil,
    "floor": math.floor,
    "abs": abs,
    "int": int,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
_SIGNS = {"eq": "=", "ne": "≠", "lt": "<", "le": "≤", "gt": ">", "ge": "≥"}
_WORDS = {"add": " + ", "mul": " × ", "sub": " − ", "div": " / ", "pow": " ^ ", "mod": " mod "}


def compile_expr(node: Any) -> Expr:
    if not isinstance(node, dict):
        return lambda rec, seen: node
    ((op, arg),) = node.items()
    if op == "this":
        return _this(str(arg))
    if op == "last":
        return _last(str(arg))
    if op == "count":
        return _count(str(arg))
    if op in _FOLDS:
        return _fold(_FOLDS[op], [compile_expr(a) for a in arg])
    if op in _PAIRS:
        return _pair(_PAIRS[op], [compile_expr(a) for a in arg])
    if op in _ONES:
        return _one(_ONES[op], compile_expr(arg))
    raise ValueError(f"unknown expression {op!r}")


def _is_integer(value: Any) -> bool:
    return abs(round(value) - value) < 0.00001


def compile_test(node: Node) -> Test:
    """A predicate that never raises: an evaluation failure is a failed test."""
    inner = _test(node)

    def test(rec: Record, seen: Seen) -> bool:
        try:
            return bool(inner(rec, seen))
        except Exception:  # any failure to evaluate fails the rule, as officially
            return False

    return test


def _test(node: Node) -> Test:
    ((op, arg),) = node.items()
    if op in _COMPARE:
        return _pair(_COMPARE[op], [compile_expr(a) for a in arg])
    if op == "all":
        parts = [_test(a) for a in arg]
        return lambda rec, seen: all(p(rec, seen) for p in parts)
    if op == "any":
        options = [_test(a) for a in arg]
        return lambda rec, seen: any(p(rec, seen) for p in options)
    if op == "not":
        negated = _test(arg)
        return lambda rec, seen: not negated(rec, seen)
    if op == "integer":
        item = compile_expr(arg)
        return lambda rec, seen: _is_integer(item(rec, seen))
    raise ValueError(f"unknown test {op!r}")


def render(node: Any) -> str:
    """An expression or test in words: ``value = 1200000 − opt_learning_rate_warmup_steps``."""
    if not isinstance(node, dict):
        return (
            repr(node)
            if isinstance(node, str)
            else str(node).lower()
            if node is None
            else str(node)
        )
    ((op, arg),) = node.items()
    if op == "this":
        return str(arg)
    if op == "last":
        return str(arg)
    if op == "count":
        return f"count({arg})"
    if op in _COMPARE:
        return f"{render(arg[0])} {_SIGNS[op]} {render(arg[1])}"
    if op in _WORDS:
        return "(" + _WORDS[op].join(render(a) for a in arg) + ")"
    if op in ("min", "max"):
        return f"{op}({', '.join(render(a) for a in arg)})"
    if op in _ONES:
        return f"{op}({render(arg)})"
    if op in ("all", "any"):
        return (" and " if op == "all" else " or ").join(render(a) for a in arg)
    if op == "not":
        return f"not ({render(arg)})"
    if op == "integer":
        return f"{render(arg)} is an integer"
    return op


def references(node: Any) -> list[str]:
    """The keys an expression reads (``last``/``count``), in order, for messages."""
    return _named(node, ("last", "count"))


def fields(node: Any) -> list[str]:
    """The checked record's fields a test reads (``{this: metadata.samples_count}``)."""
    return _named(node, ("this",))


def _named(node: Any, ops: tuple[str, ...]) -> list[str]:
    """The arguments of the ``ops`` nodes in an expression or test, in order, once each."""
    if not isinstance(node, dict):
        return []
    found: list[str] = []
    for op, arg in node.items():
        if op in ops:
            found.append(str(arg))
        elif isinstance(arg, list):
            for item in arg:
                found.extend(_named(item, ops))
        elif isinstance(arg, dict):
            found.extend(_named(arg, ops))
    return list(dict.fromkeys(found))


def _number(value: Any) -> str:
    """A value as a message quotes it, at most _QUOTED characters (docs/security.md)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        text = repr(value[:_QUOTED])
    elif isinstance(value, (dict, list)):
        from .schema import show

        return show(value, _QUOTED)
    else:
        text = str(value)
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"


# A quoted value longer than this is cut: a message quotes several (the keys read).
_QUOTED = 80


def _computed(node: Any, rec: Record, seen: Seen) -> str:
    """An expression as the reader should see it: a literal or a field as it is, else its
    words and the value they came to (``ceil(262144 / global_batch_size) = 2``)."""
    if not isinstance(node, dict):
        return render(node)
    try:
        value = _number(compile_expr(node)(rec, seen))
    except Exception:  # what an official CHECK raising means: no value (expr docstring)
        value = "no value"
    ((op, arg),) = node.items()
    if op == "this":
        return f"{arg} {value}"
    words = render(node)  # the rule's says: already states a long formula in words
    return f"{words} = {value}" if len(words) <= _SHORT else f"computed {value}"


# A formula longer than this is not repeated in a message: its value is.
_SHORT = 48


def _comparisons(node: Any, rec: Record, seen: Seen, every: bool = False) -> list[str]:
    """Each comparison of a test that does not hold (``every``: each one, holding or not:
    the other bound of a band), with both sides computed."""
    ((op, arg),) = node.items()
    if op in ("all", "any"):
        return [part for item in arg for part in _comparisons(item, rec, seen, op == "all")]
    if op == "not":
        return [f"not ({render(arg)})"] if _test(node)(rec, seen) is False else []
    try:
        holds = bool(_test(node)(rec, seen))
    except Exception:  # evaluation failed: show what could be computed
        holds = False
    if holds and not every:
        return []
    said = "holds" if holds else "is false"
    if op in _COMPARE:
        left, right = _computed(arg[0], rec, seen), _computed(arg[1], rec, seen)
        return [f"{left} {_SIGNS[op]} {right} {said}"]
    if op == "integer":
        return [f"{_computed(arg, rec, seen)} is {'' if holds else 'not '}an integer"]
    return []


def explain(node: Node, rec: Record, seen: Seen) -> str:
    """What a failing test computed, for the message (docs/rules.md, "Relations"): the
    comparisons that do not hold with each side's value, and the earlier keys read with
    their values and lines."""
    parts = _comparisons(node, rec, seen)
    for key in references(node):
        found = seen.get(key)
        earlier = found.before(rec) if found is not None else None
        if earlier is None:
            parts.append(f"no {key} logged before")
        else:
            parts.append(f"{key} = {_number(earlier.value)} at line {earlier.line}")
    return "; ".join(parts)
