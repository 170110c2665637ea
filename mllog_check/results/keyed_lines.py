"""System descriptions written as ``key: {json}`` lines instead of one JSON object.

NVIDIA's MLPerf Training v0.6 descriptions (``systems/<system>.json``) repeat the
submission records of its logs, one per line: ``org: {"value": "NVIDIA", "metadata":
{...}}``, then ``division``, ``status``, ``platform``, ``entry``, ``poc_name`` and
``poc_email``. ``entry``'s value is a Python dict written as text (``str(dict)``:
single quotes), whose ``nodes`` and ``libraries`` are dicts written as text again.

``read`` turns such a file into the JSON template's keys (docs/scores.md, "Hardware
columns"): ``submitter``, ``division``, ``status``, ``system_name`` (``entry``'s
``hardware``, else ``platform``), node and accelerator counts, accelerator and host
processor names, framework and OS. Nothing is evaluated: the dict text is read by a
small scanner of quoted strings and plain words, flat (no nesting), bounded in size.
Anything else raises ``NotKeyedLines`` with the reason; the caller reports it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import ReadError

# A description is a few kilobytes; the bound keeps a hostile file cheap to refuse.
MAX_LINES = 200
MAX_TEXT = 100_000

_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]{0,63}):[ \t]*(\{.*\})\Z")
# Python's string literals as str() writes them, and the plain words beside them.
_TOKEN = re.compile(
    r"""[ \t\r\n]*(?:'((?:[^'\\\n]|\\.){0,50000})'|"((?:[^"\\\n]|\\.){0,50000})"|"""
    r"""([-+.A-Za-z0-9_]{1,100})|([{}:,]))""",
    re.DOTALL,
)
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}

# Template key -> key of the file's records, of entry, of entry's nodes.
_FROM_RECORDS = {"submitter": "org", "division": "division", "status": "status"}
_FROM_ENTRY = {
    "framework": "framework",
    "operating_system": "os",
    "host_networking": "interconnect",
}
_FROM_NODES = {
    "number_of_nodes": "num_nodes",
    "accelerators_per_node": "num_accelerators",
    "accelerator_model_name": "accelerator",
    "host_processor_model_name": "cpu",
    "host_processor_core_count": "num_cores",
    "host_processor_vcpu_count": "num_vcpus",
    "host_memory_capacity": "sys_mem_size",
    "host_storage_type": "sys_storage_type",
    "host_storage_capacity": "sys_storage_size",
}


class NotKeyedLines(ReadError, ValueError):
    """The text is not a description in ``key: {json}`` lines (the message says why)."""


def looks_keyed(text: str) -> bool:
    """Whether the first non-blank line is ``key: {`` (then ``read``'s reason is the
    one to give, not the JSON decoder's)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return _LINE.match(first) is not None


def read(text: str) -> dict[str, Any]:
    """The description's values under the JSON template's keys; NotKeyedLines when the
    text is not this form (module doc)."""
    if len(text) > MAX_TEXT:
        raise NotKeyedLines(f"more than {MAX_TEXT} characters")
    records: dict[str, Any] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if len(records) >= MAX_LINES:
            raise NotKeyedLines(f"more than {MAX_LINES} lines")
        match = _LINE.match(line)
        if match is None:
            raise NotKeyedLines(f"line {number} is not `key: {{json}}`")
        key = match[1]
        if key in records:
            raise NotKeyedLines(f"line {number}: {key!r} stated twice")
        try:
            record = json.loads(match[2])
        except (ValueError, RecursionError) as err:  # JSONDecodeError, huge integers
            raise NotKeyedLines(f"line {number}: {str(err)[:80]}") from None
        if not isinstance(record, dict) or "value" not in record:
            raise NotKeyedLines(f"line {number}: no value")
        records[key] = record["value"]
    if not records:
        raise NotKeyedLines("no `key: {json}` line")
    return _template(records)


def _template(records: dict[str, Any]) -> dict[str, Any]:
    entry = python_dict(records["entry"], "entry") if "entry" in records else {}
    nodes = python_dict(entry["nodes"], "entry's nodes") if "nodes" in entry else {}
    data: dict[str, Any] = {}
    for sources, names in ((records, _FROM_RECORDS), (entry, _FROM_ENTRY), (nodes, _FROM_NODES)):
        for key, name in names.items():
            if name in sources:
                data[key] = sources[name]
    system = entry.get("hardware", records.get("platform"))
    if system is not None:
        data["system_name"] = system
    return data


def python_dict(text: Any, what: str) -> dict[str, str]:
    """A flat dict written by Python's str(): quoted keys, quoted or plain values (a
    nested dict is written as a quoted string, read by another call)."""
    if not isinstance(text, str):
        raise NotKeyedLines(f"{what} is not a dict written as text")
    if len(text) > MAX_TEXT:
        raise NotKeyedLines(f"{what}: more than {MAX_TEXT} characters")
    tokens = _tokens(text.strip(), what)
    if len(tokens) < 2 or tokens[0] != ("{", False) or tokens[-1] != ("}", False):
        raise NotKeyedLines(f"{what} is not a dict written as text")
    out: dict[str, str] = {}
    body = tokens[1:-1]
    index = 0
    while index < len(body):
        part = body[index : index + 4]
        key, colon, value = (part + [("", False)] * 3)[:3]
        if not key[1] or colon != (":", False) or (value[0] in "{}:," and not value[1]):
            raise NotKeyedLines(f"{what}: not key: value at item {len(out) + 1}")
        if key[0] in out:
            raise NotKeyedLines(f"{what}: {key[0]!r} stated twice")
        out[key[0]] = value[0]
        index += 3
        if index < len(body):
            if body[index] != (",", False):
                raise NotKeyedLines(f"{what}: no comma after item {len(out)}")
            index += 1
    return out


def _tokens(text: str, what: str) -> list[tuple[str, bool]]:
    """(text, quoted) of each token: strings unquoted, words and punctuation as written."""
    tokens: list[tuple[str, bool]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise NotKeyedLines(f"{what}: unreadable at character {position + 1}")
        single, double, word, mark = match.groups()
        if single is not None or double is not None:
            tokens.append((_unescaped(single if single is not None else double, what), True))
        else:
            tokens.append((word or mark, False))
        position = match.end()
    return tokens


def _unescaped(body: str, what: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match[1]
        if code[0] in "xuU" and len(code) > 1:
            number = int(code[1:], 16)
            if number > 0x10FFFF:
                raise NotKeyedLines(f"{what}: escape \\{code} names no character")
            return chr(number)
        return _ESCAPES.get(code, "\\" + code)

    return _ESCAPE.sub(one, body)
