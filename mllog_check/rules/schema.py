"""JSON Schema fragments of the rule data: compiled once, plus four keywords of our own.

The official rule files write arithmetic as Python (``is_integer(v / 0.02)``,
``is_integer(math.log2(v / 0.0001))``); here they are declarative keywords with
the official tolerance (|round(q) − q| < 1e-5), so nothing is ever evaluated;
``xPythonInt`` is the official ``isinstance(v, int)``, which JSON Schema's ``integer``
(6.0 is one) cannot say.
jsonschema is imported here only (the check path needs it; nothing else does).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from functools import cache

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    # A JSON Schema fragment as a rule file states it (the rule file's schema checks it).
    Schema = dict[str, Any]
    # A compiled test of one logged value.
    Predicate = Callable[[Any], bool]

    class Compiled(Protocol):
        def is_valid(self, instance: Any) -> bool: ...


def _near_integer(q: float, tolerance: float) -> bool:
    if math.isinf(q) or math.isnan(q):  # a quotient beyond floats: round() would raise
        return False
    return abs(round(q) - q) < tolerance


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def finite_number(value: Any) -> float | None:
    """A JSON number as a finite float; None for anything else, and for an integer beyond
    floats (JSON allows 10**400; float() of it raises, as the official check does)."""
    if not _is_number(value):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def multiple_of(value: Any, spec: dict[str, float]) -> bool:
    """xMultipleOf: value / base is an integer within the tolerance (official is_integer)."""
    value = finite_number(value)
    if value is None:
        return False
    return _near_integer(value / spec["base"], spec["tolerance"])


def power_of_two_times(value: Any, spec: dict[str, float]) -> bool:
    """xPowerOfTwoTimes: value = base · 2^N for an integer N (log2 within the tolerance)."""
    value = finite_number(value)
    if value is None or not value > 0:
        return False
    return _near_integer(math.log2(value / spec["base"]), spec["tolerance"])


def divisor_of(value: Any, spec: dict[str, float]) -> bool:
    """xDivisorOf: base / value is an integer within the tolerance (base = value · k)."""
    value = finite_number(value)
    if value is None or not value > 0:
        return False
    return _near_integer(spec["base"] / value, spec["tolerance"])


def python_int(value: Any) -> bool:
    """xPythonInt (always ``true``): the official ``isinstance(v, int)``; a boolean is an
    int in Python, and 6.0, an integer for JSON Schema, is not one."""
    return isinstance(value, int)


def _keyword(check: Any, label: str) -> Any:
    def validate(validator: Any, spec: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        if not check(instance, spec):
            yield ValidationError(f"{instance!r} is not {label} {spec['base']}")

    return validate


def _python_int_keyword(validator: Any, spec: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not python_int(instance):
        yield ValidationError(f"{instance!r} is not a Python int")


@cache
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        {
            "xMultipleOf": _keyword(multiple_of, "a multiple of"),
            "xPowerOfTwoTimes": _keyword(power_of_two_times, "a power of two times"),
            "xDivisorOf": _keyword(divisor_of, "a divisor of"),
            "xPythonInt": _python_int_keyword,
        },
    )


def compile_fragment(schema: Schema, *, python: bool = False) -> Compiled:
    """A validator for one fragment; built at ruleset load, reused for every record.

    Fragments that use only the keywords below run on a small direct evaluator with
    jsonschema's semantics (tests/test_rules_schema.py checks the two agree), so that a
    single-file check does not import jsonschema; any other keyword goes to jsonschema.
    With ``python``, numbers compare as in the official files' Python: a boolean is a
    number (True == 1, True > 0) for type, bounds, const and enum.
    """
    if _supported(schema):
        return _Fast(schema, python)
    validator: Compiled = _validator_class()(schema)
    return validator


def jsonschema_validator(schema: Schema) -> Compiled:
    """The reference validator (jsonschema with the two extra keywords)."""
    validator: Compiled = _validator_class()(schema)
    return validator


_SUB = ("not",)
_SUBLISTS = ("anyOf", "prefixItems")
_LEAF = {
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "required",
    "minItems",
    "maxItems",
    "minLength",
    "xMultipleOf",
    "xPowerOfTwoTimes",
    "xDivisorOf",
    "xPythonInt",
}
_TYPES: dict[str, Predicate] = {
    "number": lambda v: _is_number(v),
    "integer": lambda v: _is_number(v) and float(v).is_integer(),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _supported(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    for keyword, arg in schema.items():
        if keyword in _LEAF:
            if keyword == "type" and (not isinstance(arg, str) or arg not in _TYPES):
                return False
        elif keyword in _SUB:
            if not _supported(arg):
                return False
        elif keyword == "properties":
            if not all(_supported(sub) for sub in arg.values()):
                return False
        elif keyword in _SUBLISTS:
            if not all(_supported(sub) for sub in arg):
                return False
        else:
            return False
    return True


def equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema's const/enum see it: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    return bool(a == b)


class _Fast:
    """Direct evaluation of a supported fragment (no jsonschema import).

    The fragment is turned into nested closures once, at ruleset load: the engine
    runs one per record, so interpreting the dict every time would dominate a check.
    Equal when the fragments are (as a dataclass over schema and python would be).
    """

    __slots__ = ("_check", "python", "schema")
    __hash__ = None  # type: ignore[assignment]  # the schema is a dict

    def __init__(self, schema: Schema, python: bool = False) -> None:
        self.schema = schema
        self.python = python
        self._check = _compile(schema, python)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Fast):
            return NotImplemented
        return (self.schema, self.python) == (other.schema, other.python)

    def __repr__(self) -> str:
        return f"_Fast(schema={self.schema!r}, python={self.python!r})"

    def is_valid(self, instance: Any) -> bool:
        return bool(self._check(instance))


def _valid(schema: Schema, v: Any) -> bool:
    return all(_KEYWORDS[keyword](arg, v) for keyword, arg in schema.items())


def _compile(schema: Schema, python: bool = False) -> Any:
    """A predicate equal to _valid(schema, ·), with sub-schemas compiled too."""
    checks = [_compile_keyword(keyword, arg, python) for keyword, arg in schema.items()]
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


def _compile_keyword(keyword: str, arg: Any, python: bool = False) -> Any:
    if python and keyword in _PYTHON:
        return _PYTHON[keyword](arg)
    if keyword == "properties":
        subs = [(key, _compile(sub, python)) for key, sub in arg.items()]
        return lambda v: not isinstance(v, dict) or all(c(v[k]) for k, c in subs if k in v)
    if keyword == "required":
        keys = tuple(arg)
        return lambda v: not isinstance(v, dict) or all(k in v for k in keys)
    if keyword == "type":
        return _TYPES[arg]
    if keyword == "not":
        inner = _compile(arg, python)
        return lambda v: not inner(v)
    if keyword == "anyOf":
        options = [_compile(sub, python) for sub in arg]
        return lambda v: any(option(v) for option in options)
    if keyword == "prefixItems":
        items = [_compile(sub, python) for sub in arg]
        return lambda v: (
            not isinstance(v, list) or all(c(x) for c, x in zip(items, v, strict=False))
        )
    test = _KEYWORDS[keyword]
    return lambda v: test(arg, v)


def _py_number(v: Any) -> bool:
    return isinstance(v, int | float)  # bool is an int in Python


def _py_bound(test: Any) -> Any:
    return lambda arg: lambda v: not _py_number(v) or test(v, arg)


def _py_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an exotic comparison: not equal
        return False


_PYTHON: dict[str, Callable[[Any], Predicate]] = {
    "type": lambda arg: (
        _py_number
        if arg == "number"
        else (lambda v: _py_number(v) and float(v).is_integer())
        if arg == "integer"
        else _TYPES[arg]
    ),
    "const": lambda arg: lambda v: _py_equal(v, arg),
    "enum": lambda arg: lambda v: any(_py_equal(v, x) for x in arg),
    "minimum": _py_bound(lambda v, a: v >= a),
    "maximum": _py_bound(lambda v, a: v <= a),
    "exclusiveMinimum": _py_bound(lambda v, a: v > a),
    "exclusiveMaximum": _py_bound(lambda v, a: v < a),
}


def _bound(test: Any) -> Any:
    return lambda arg, v: not _is_number(v) or test(v, arg)


_KEYWORDS: dict[str, Callable[[Any, Any], bool]] = {
    "type": lambda arg, v: _TYPES[arg](v),
    "const": lambda arg, v: equal(v, arg),
    "enum": lambda arg, v: any(equal(v, x) for x in arg),
    "not": lambda arg, v: not _valid(arg, v),
    "minimum": _bound(lambda v, a: v >= a),
    "maximum": _bound(lambda v, a: v <= a),
    "exclusiveMinimum": _bound(lambda v, a: v > a),
    "exclusiveMaximum": _bound(lambda v, a: v < a),
    "required": lambda arg, v: not isinstance(v, dict) or all(k in v for k in arg),
    "properties": lambda arg, v: (
        not isinstance(v, dict) or all(_valid(sub, v[k]) for k, sub in arg.items() if k in v)
    ),
    "minItems": lambda arg, v: not isinstance(v, list) or len(v) >= arg,
    "maxItems": lambda arg, v: not isinstance(v, list) or len(v) <= arg,
    "prefixItems": lambda arg, v: (
        not isinstance(v, list) or all(_valid(sub, x) for sub, x in zip(arg, v, strict=False))
    ),
    "anyOf": lambda arg, v: any(_valid(sub, v) for sub in arg),
    "minLength": lambda arg, v: not isinstance(v, str) or len(v) >= arg,
    "xDivisorOf": lambda arg, v: divisor_of(v, arg),
    "xMultipleOf": lambda arg, v: multiple_of(v, arg),
    "xPowerOfTwoTimes": lambda arg, v: power_of_two_times(v, arg),
    "xPythonInt": lambda arg, v: python_int(v),
}


def validate_document(document: Any, schema: Schema) -> list[str]:
    """Errors of a whole document (the rule file itself) against a schema, sorted."""
    from jsonschema import Draft202012Validator

    errors = Draft202012Validator(schema).iter_errors(document)
    return sorted(f"{'/'.join(map(str, e.absolute_path)) or '<top>'}: {e.message}" for e in errors)


def show(value: Any, limit: int = 80) -> str:
    """A value as JSON for a message (Infinity allowed), bounded in length."""
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_BOUNDS = (
    ("minimum", "≥"),
    ("exclusiveMinimum", ">"),
    ("maximum", "≤"),
    ("exclusiveMaximum", "<"),
)


def describe(schema: Schema) -> str:
    """What a fragment requires, in words ("must be 0.0001", "must be ≥ 0.759 and < 1.0")."""
    parts: list[str] = []
    if "const" in schema:
        parts.append(f"must be {show(schema['const'])}")
    if "enum" in schema:
        parts.append(f"must be one of {', '.join(show(v) for v in schema['enum'])}")
    if "not" in schema and set(schema["not"]) == {"const"}:
        parts.append(f"must not be {show(schema['not']['const'])}")
    if schema.get("type") in ("number", "array", "object") and not _has_bounds(schema):
        parts.append(
            f"must be {'an' if schema['type'] in ('array', 'object') else 'a'} {schema['type']}"
        )
    bounds = [f"{sign} {show(schema[k])}" for k, sign in _BOUNDS if k in schema]
    if bounds:
        parts.append("must be " + " and ".join(bounds))
    parts.extend(_describe_items(schema))
    if "required" in schema:
        parts.append("must contain " + ", ".join(schema["required"]))
    for name, sub in sorted(schema.get("properties", {}).items()):
        inner = describe(sub)
        if inner:
            parts.append(f"{name} {inner}")
    for keyword, words in (
        ("xMultipleOf", "a multiple of"),
        ("xPowerOfTwoTimes", "2^N times"),
        ("xDivisorOf", "a divisor of"),
    ):
        if keyword in schema:
            parts.append(f"must be {words} {show(schema[keyword]['base'])}")
    if "xPythonInt" in schema:
        parts.append("must be an integer written without a fraction (6.0 is not)")
    if "anyOf" in schema:
        parts.insert(0, _describe_any(schema["anyOf"]))
    return "; ".join(parts) if parts else "must satisfy the rule"


def _describe_any(options: list[Schema]) -> str:
    """anyOf in words: "must contain epoch_num or samples_count" for alternatives of keys."""
    if all(set(o) == {"required"} for o in options):
        return "must contain " + " or ".join(", ".join(o["required"]) for o in options)
    words = [describe(o).removeprefix("must ") for o in options]
    return "must " + " or ".join(f"({w})" if ";" in w else w for w in words)


def _has_bounds(schema: Schema) -> bool:
    return any(k in schema for k, _ in _BOUNDS) or "minItems" in schema or "required" in schema


def _describe_items(schema: Schema) -> list[str]:
    parts: list[str] = []
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low is not None and low == high:
        parts.append(f"must have {low} items")
    elif low is not None:
        parts.append(f"must have at least {low} items")
    for index, sub in enumerate(schema.get("prefixItems", [])):
        inner = describe(sub) if sub else ""
        if inner:
            parts.append(f"item {index} {inner}")
    return parts
