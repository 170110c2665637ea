"""System descriptions (`systems/<system>.json`) in a package: load (the one model and
reader, ``results.tree``) with the package's problems, validate per round.

The schema of a round lives in ``schemas/system_description/<round>.json``; a round
file names the round it ``extends`` and states only its changes (``x-required-add``,
``x-required-remove``, ``properties``), merged as every kind of round data is
(mllog_check.datafiles).

What the round's official system-description check rejects is an error (MLP011): a
missing required key (the official package checker reads descriptions from v1.0) and,
from v4.1, a status outside its four values. Everything else the schema finds is
advice (MLP100, a warning; an error only with --strict): values are checked as they
really occur, numbers written as strings, ``other_software_stack`` a string or an object.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..problems import Problem
from ..results.tree import SystemDescription, read_system
from . import codes

if TYPE_CHECKING:  # a JSON Schema document as read, before its own checks
    from ..datafiles import Document
    from ..rounds import Round

_PLACEHOLDERS = frozenset({"todo", "tbd", "tba", "fixme", "xxx"})


def load(path: Path, display: str | None = None, root: Path | None = None) -> SystemDescription:
    """Read one system description (``results.tree.read_system``, inside ``root`` when
    given); what cannot be read is its package problem (MLP008/MLP009/MLP010). Never
    raises."""
    desc = read_system(path, root, display)
    why = desc.unreadable
    if why is None:
        return desc
    shown = desc.path
    if why.kind == "read":
        problem = codes.UNREADABLE.problem(shown, f"cannot read system description: {why.reason}")
    elif why.kind == "nesting":  # thousands of nested brackets
        problem = codes.INVALID_JSON.problem(shown, "invalid JSON: nested too deeply")
    elif why.kind == "json":
        problem = codes.INVALID_JSON.problem(
            shown, f"invalid JSON: {why.detail}", why.line, why.column
        )
    elif why.kind == "value":
        problem = codes.INVALID_JSON.problem(shown, f"invalid JSON: {why.reason}")
    else:
        msg = f"a system description is a JSON object, not {why.reason}"
        problem = codes.SCHEMA.problem(shown, msg, 1, 1)
    return dataclasses.replace(desc, problems=[problem])


@cache
def round_schema(round_name: str) -> Document:
    """The merged JSON Schema of a round ('v1.0', '1.0.0', any spelling), following
    ``extends``; the file is the one the round registry names."""
    from ..datafiles import EXTENDS, load_json, merge_named
    from ..rounds import parse_round

    rnd = parse_round(round_name)
    path = rnd.path("system_description")
    if path is None:
        why = rnd.missing("system_description") or f"round {rnd.version} has no system schema"
        raise FileNotFoundError(why)
    own = load_json(path)
    parent_name = own.pop(EXTENDS, None)
    if parent_name is None:
        return dict(own)
    merged = json.loads(json.dumps(round_schema(parent_name)))
    where = f"{path}: x-required-remove"
    required = dict.fromkeys(merged.get("required", []), True)
    required = merge_named(required, None, own.pop("x-required-remove", None), where)
    required.update(dict.fromkeys(own.pop("x-required-add", []), True))
    merged["required"] = list(required)
    merged["properties"] = merge_named(
        merged.get("properties", {}), own.pop("properties", {}), None, str(path)
    )
    merged.update(own)
    return merged


def known_rounds() -> list[str]:
    """Rounds ('v1.0') whose system-description schema is in this build."""
    from ..rounds import all_rounds

    return [r.folder for r in all_rounds() if r.path("system_description") is not None]


def validate(desc: SystemDescription, round_name: str) -> list[Problem]:
    """Schema errors and placeholder warnings, each at the line of the offending key."""
    if desc.data is None:
        return []
    schema = round_schema(round_name)
    problems = []
    seen: set[str] = set()
    for error in _schema_errors(desc.data, schema):
        key = str(error.path[0]) if error.path else _missing(error)
        if key and key in seen:  # one message per field (e.g. minLength and pattern)
            continue
        seen.add(key)
        message, line, col = _message(error, key), *position(desc.text, key)
        if error.validator == "required":
            message, line, col = _misspelt(desc, schema, key, message)
        info = codes.SCHEMA if _official(error, key, round_name) else codes.SYSDESC_ADVICE
        problems.append(info.problem(desc.path, message, line, col))
    held = [
        k for k, v in desc.data.items() if isinstance(v, str) and v.strip().lower() in _PLACEHOLDERS
    ]
    if held:
        # One warning per file: Google's v1.0 descriptions hold 14 TODOs each.
        line, col = position(desc.text, held[0])
        noun = "field holds" if len(held) == 1 else "fields hold"
        msg = f"{len(held)} {noun} a placeholder such as TODO: {', '.join(held)}"
        problems.append(codes.PLACEHOLDER.problem(desc.path, msg, line, col))
    problems.extend(repeated_keys(desc))
    return sorted(problems)


def _schema_errors(data: Any, schema: Document) -> list[Any]:
    """jsonschema's errors of ``data``; none without importing jsonschema when the small
    checker below finds the description valid (almost every one is: docs/package.md)."""
    if quick_valid(data, schema, schema) is True:
        return []
    from jsonschema import Draft202012Validator  # an invalid description only

    return list(Draft202012Validator(schema).iter_errors(data))


# The keywords of the shipped system-description schemas (schemas/system_description/)
# the small checker decides; annotations it skips. Any other keyword: jsonschema.
_ANNOTATIONS = frozenset({"$schema", "$comment", "$defs", "title", "description", "examples"})


def quick_valid(value: Any, schema: Any, root: Document) -> bool | None:
    """Whether ``value`` is valid against ``schema`` (a fragment of ``root``), with
    jsonschema's Draft 2020-12 semantics for the keywords it knows; None when the schema
    uses another keyword (then jsonschema decides). True only when surely valid:
    tests/test_sysdesc_quick.py holds it to jsonschema on every corpus description."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return None
    verdict: bool | None = True
    for keyword, arg in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _QUICK.get(keyword)
        found = None if check is None else check(value, arg, root)
        if found is None:
            verdict = None
        elif not found:
            return False
    return verdict


def _is_type(value: Any, name: str) -> bool | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return {
        "string": isinstance(value, str),
        "number": number,
        "integer": number and (isinstance(value, int) or float(value).is_integer()),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "boolean": isinstance(value, bool),
        "null": value is None,
    }.get(name)


def _type(value: Any, arg: Any, root: Document) -> bool | None:
    names = [arg] if isinstance(arg, str) else arg
    if not isinstance(names, list):
        return None
    found = [_is_type(value, n) if isinstance(n, str) else None for n in names]
    return None if None in found else any(found)


def _all(results: Iterable[bool | None]) -> bool | None:
    verdict: bool | None = True
    for result in results:
        if result is False:
            return False
        if result is None:
            verdict = None
    return verdict


def _ref(value: Any, arg: Any, root: Document) -> bool | None:
    if not isinstance(arg, str) or not arg.startswith("#/$defs/"):
        return None
    target = (root.get("$defs") or {}).get(arg.removeprefix("#/$defs/"))
    return None if target is None else quick_valid(value, target, root)


def _any_of(value: Any, arg: Any, root: Document) -> bool | None:
    if not isinstance(arg, list):
        return None
    found = [quick_valid(value, sub, root) for sub in arg]
    return True if True in found else (None if None in found else False)


def _pattern(value: Any, arg: Any, root: Document) -> bool | None:
    if not isinstance(value, str):
        return True
    try:
        return re.search(arg, value) is not None
    except (re.error, TypeError):
        return None


def _number_bound(value: Any, arg: Any, root: Document) -> bool | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return None if isinstance(arg, bool) or not isinstance(arg, int | float) else value >= arg


def _enum(value: Any, arg: Any, root: Document) -> bool | None:
    from ..rules.schema import equal  # jsonschema's equality: true is not 1

    return any(equal(value, x) for x in arg) if isinstance(arg, list) else None


def _properties(value: Any, arg: Any, root: Document) -> bool | None:
    if not isinstance(value, dict):
        return True
    if not isinstance(arg, dict):
        return None
    return _all(quick_valid(value[k], sub, root) for k, sub in arg.items() if k in value)


def _additional(value: Any, arg: Any, root: Document) -> bool | None:
    # Only the forms the shipped schemas use: true, or a schema with no "properties"
    # beside it (software_stack's components); anything else asks jsonschema.
    if arg is True or not isinstance(value, dict):
        return True
    return _all(quick_valid(v, arg, root) for v in value.values())


_QUICK: dict[str, Callable[[Any, Any, Document], bool | None]] = {
    "type": _type,
    "$ref": _ref,
    "anyOf": _any_of,
    "pattern": _pattern,
    "minimum": _number_bound,
    "enum": _enum,
    "properties": _properties,
    "required": lambda v, arg, root: (
        not isinstance(v, dict) or all(k in v for k in arg) if isinstance(arg, list) else None
    ),
    "minLength": lambda v, arg, root: (
        not isinstance(v, str) or len(v) >= arg if isinstance(arg, int) else None
    ),
    "additionalProperties": _additional,
}


def repeated_keys(desc: SystemDescription) -> list[Problem]:
    """MLP013 for each key a JSON description states twice in one object with different
    values, at the line of its second statement, naming both lines and the value every
    reader keeps."""
    if desc.data is None or desc.form != "json" or not desc.text:
        return []
    repeated: list[tuple[str, object]] = []

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        seen: dict[str, object] = {}
        for key, value in items:
            # the same value twice changes nothing a reader sees (v1.0 Graphcore's
            # "host_storage_type" written twice): no finding a reviewer files
            if key in seen and seen[key] != value:
                repeated.append((key, value))
            seen[key] = value
        return seen

    try:
        json.loads(desc.text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):  # read once already: nothing new to say
        return []
    problems = []
    for key in sorted({k for k, _ in repeated}):
        places = [position_of(desc.text, m) for m in _statements(desc.text, key)]
        kept = next(v for k, v in reversed(repeated) if k == key)
        lines = " and ".join(str(line) for line, _ in places[:2]) or "unknown"
        message = (
            f'"{key}" is stated {max(len(places), 2)} times (lines {lines}): JSON readers, '
            f"the official tools' included, keep the last ({_shown(kept)}) and never read "
            "the first"
        )
        line, col = places[1] if len(places) > 1 else (0, 0)
        problems.append(codes.REPEATED_KEY.problem(desc.path, message, line, col))
    return problems


def _statements(text: str, key: str) -> list[int]:
    """Where ``"key":`` is written (offsets), in order."""
    return [m.start() for m in re.finditer(r'"' + re.escape(key) + r'"\s*:', text)]


def position_of(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of an offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, dict) else "{…}"
    return text if len(text) <= 60 else text[:59] + "…"


def keyed_lines_problems(desc: SystemDescription, rnd: Round) -> list[Problem]:
    """A description written as `key: {json}` lines (results/keyed_lines.py): invalid
    JSON (MLP010) where the round's official check loads descriptions as JSON (from
    v1.0), else advice (MLP100): the official package checker reads no v0.6 or v0.7
    description, and the score reads these lines (docs/package.md)."""
    if rnd.applies("system_description_checked"):
        msg = "invalid JSON: `key: {json}` lines (the v0.6-era form), not one JSON object"
        return [codes.INVALID_JSON.problem(desc.path, msg, 1, 1)]
    msg = (
        "`key: {json}` lines (the v0.6-era form), not the round's JSON template: read for "
        "scores (system, status, accelerators), not validated against the template"
    )
    return [codes.SYSDESC_ADVICE.problem(desc.path, msg, 1, 1)]


def _official(error: Any, key: str, round_name: str) -> bool:
    """Would the round's official system-description check reject this? (key presence,
    and the status value, from the rounds the registry's policies say: v1.0 and v4.1)"""
    from ..rounds import parse_round

    rnd = parse_round(round_name)
    if error.validator == "required":
        return rnd.applies("system_description_checked")
    return key == "status" and rnd.applies("system_status_checked")


def _missing(error: Any) -> str:
    """The field a ``required`` error names ('' for other errors at the top level)."""
    if error.validator != "required":
        return ""
    missing = re.findall(r"'([^']+)' is a required property", error.message)
    return missing[0] if missing else ""


def _misspelt(
    desc: SystemDescription, schema: Document, key: str, message: str
) -> tuple[str, int, int]:
    """A missing field the file spells otherwise: the message names the misspelt key and
    points at its line (the whole file, 0:0, when no key is close)."""
    from ..suggest import closest

    assert desc.data is not None
    known = set(schema.get("properties", {})) | set(schema.get("required", []))
    unknown = [k for k in desc.data if isinstance(k, str) and k not in known]
    found = closest(key, unknown)
    if not found:
        return message, 0, 0
    line, col = position(desc.text, found[0])
    return f"{message}: the file has {found[0]!r} (did you mean {key!r}?)", line, col


def _message(error: Any, key: str) -> str:
    if error.validator == "required":
        return f"missing required field {key or error.message!r}"
    value = error.instance
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        return f"{key!r} is {value!r}; allowed values: {allowed}{_division_note(key)}"
    wanted = error.schema.get("description") or error.message
    return f"{key!r} is {value!r}: expected {wanted}"


def _division_note(key: str) -> str:
    """What a division other than 'closed' turns off: the official package checker runs
    its seed and RCP checks only where the description says exactly 'closed', and so does
    this one (package.seed_presence, the results stage's RCP)."""
    if key != "division":
        return ""
    return (
        "; the seed and RCP checks run only for a division of exactly 'closed', so both "
        "the official package checker and this one skip them for this system's results"
    )


def position(text: str, key: str) -> tuple[int, int]:
    """1-based line and column of the first `"key":` in the text, (1, 1) if not found."""
    if not key:
        return 1, 1
    match = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    if match is None:
        return 1, 1
    return position_of(text, match.start())
