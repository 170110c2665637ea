"""Cross-file consistency: what logs declare vs. their system description and folders.

The official tools never compare these (docs/differences.md). Real cases:
logs say closed where the JSON says open, status onprem vs preview, "division":
"close", logs of one org naming another.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..problems import Problem
from ..records import Record
from ..results.tree import SystemDescription
from . import codes
from .layout import benchmark_matches

DECLARED_KEYS = (
    "submission_org",
    "submission_division",
    "submission_status",
    "submission_platform",
    "submission_benchmark",
)
# Status categories. A description's "available" covers both "Available on-premise" and
# "Available cloud" (v1.0 Habana: description available, logs onprem and cloud; v2.0
# Google Cloud TPU: available vs cloud), so it agrees with onprem and cloud alike.
_STATUS = {
    "available": "available",
    "onprem": "onprem",
    "on-premise": "onprem",
    "available on-premise": "onprem",
    "available cloud": "cloud",
    "cloud": "cloud",
    "preview": "preview",
    "research": "research",
    "research, development, or internal (rdi)": "research",
    "rdi": "research",
}
_AVAILABLE = frozenset({"available", "onprem", "cloud"})


@dataclass
class Declared:
    """The first value (and its line) of each submission_* key in one log."""

    path: str
    values: dict[str, tuple[Any, int]] = field(default_factory=dict)

    @classmethod
    def from_records(cls, path: str, records: Iterable[Record]) -> Declared:
        found = cls(path)
        for rec in records:
            if rec.key in DECLARED_KEYS and rec.key not in found.values:
                found.values[rec.key] = (rec.value, rec.line)
        return found

    def value(self, key: str) -> Any:
        entry = self.values.get(key)
        return entry[0] if entry else None

    def line(self, key: str) -> int:
        entry = self.values.get(key)
        return entry[1] if entry else 0


def org_key(name: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def same_org(a: object, b: object) -> bool:
    """Equal ignoring case and punctuation, or one a prefix of the other (Habana/HabanaLabs)."""
    ka, kb = org_key(a), org_key(b)
    if not ka or not kb:
        return False
    short, long = sorted((ka, kb), key=len)
    return long == short or (len(short) >= 3 and long.startswith(short))


def status_key(value: object) -> str:
    """The availability category of a status written as a code or in words (v3.1
    descriptions: "Available on premise", "Available in cloud")."""
    text = str(value).strip().lower()
    if text in _STATUS:
        return _STATUS[text]
    if text.startswith("available"):
        if "cloud" in text:
            return "cloud"
        if "prem" in text:
            return "onprem"
    return text


def _text(value: object) -> str:
    return str(value).strip().lower()


def check_result_set(
    org: str,
    benchmark: str,
    logs: list[Declared],
    desc: SystemDescription | None,
) -> list[Problem]:
    """One problem per disagreement kind, at the first log that shows it."""
    problems: list[Problem] = []
    has_desc = desc is not None and desc.data is not None
    checks: list[tuple[codes.RuleInfo, str, Any, Any, Any]] = [
        (codes.ORG_MISMATCH, "submission_org", org, same_org, "org folder"),
        (codes.BENCHMARK_MISMATCH, "submission_benchmark", benchmark, None, "benchmark folder"),
    ]
    if has_desc and desc is not None:
        where = f"{desc.path}"
        for info, key, field_name, compare in (
            (codes.DIVISION_MISMATCH, "submission_division", "division", None),
            (codes.STATUS_MISMATCH, "submission_status", "status", "status"),
            (codes.ORG_MISMATCH, "submission_org", "submitter", same_org),
        ):
            checks.append((info, key, desc.get(field_name), compare, f"{where} ({field_name})"))
    for info, key, expected, compare, source in checks:
        if expected is None:
            continue
        problem = _first_disagreement(logs, info, key, expected, compare, source)
        if problem is not None:
            problems.append(problem)
    platform = _platforms(logs)
    if platform is not None:
        problems.append(platform)
    return problems


def _agrees(key: str, declared: Any, expected: Any, compare: Any) -> bool:
    if compare is same_org:
        return same_org(declared, expected)
    if compare == "status":
        a, b = status_key(declared), status_key(expected)
        # On-premise and cloud are both the results table's Available category; logs of
        # cloud systems built on reference code keep its default "onprem" (v5.0 Nebius,
        # v5.1 Oracle), so only a change of category is worth a reviewer's time.
        return a == b or {a, b} <= _AVAILABLE
    if key == "submission_benchmark":
        return benchmark_matches(str(expected), declared)
    return _text(declared) == _text(expected)


def _first_disagreement(
    logs: list[Declared],
    info: codes.RuleInfo,
    key: str,
    expected: Any,
    compare: Any,
    source: str,
) -> Problem | None:
    bad = [
        log
        for log in logs
        if key in log.values and not _agrees(key, log.value(key), expected, compare)
    ]
    if not bad:
        return None
    first = bad[0]
    values = sorted({repr(log.value(key)) for log in bad})
    message = (
        f"{len(bad)} of {len(logs)} logs declare {key} {', '.join(values)}; "
        f"{source} says {expected!r}"
    )
    return info.problem(first.path, message, first.line(key), 1)


def _platforms(logs: list[Declared]) -> Problem | None:
    seen: dict[str, Declared] = {}
    for log in logs:
        value = log.value("submission_platform")
        if value is not None:
            seen.setdefault(_text(value), log)
    if len(seen) < 2:
        return None
    first = list(seen.values())[1]
    names = ", ".join(sorted(repr(log.value("submission_platform")) for log in seen.values()))
    info = codes.PLATFORM_MISMATCH
    message = f"runs of one result set declare different submission_platform values: {names}"
    line = first.line("submission_platform")
    return info.problem(first.path, message, line, 1)
