"""Which rounds have a benchmark: read from each shipped ruleset's own allowed list.

Used by MLC050 (a benchmark the chosen round does not have) to name the rounds
that do; the rule files are the one place that says which benchmarks a round has.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .loader import available_rulesets, load_ruleset


@cache
def benchmarks_of(ruleset: str, division: str = "") -> frozenset[str]:
    """The submission_benchmark values a ruleset allows (one division, or any)."""
    rules = load_ruleset(ruleset)
    allowed: set[str] = set()
    for section in rules.sections.values():
        if division and section.name not in (division, "common"):
            continue
        spec = section.keys.get("submission_benchmark")
        if spec is not None and spec.value is not None:
            allowed.update(_enum(spec.value.schema))
    return frozenset(allowed)


def _enum(schema: dict[str, Any]) -> list[str]:
    values = schema.get("enum", [schema["const"]] if "const" in schema else [])
    return [v for v in values if isinstance(v, str)]


def rounds_with(benchmark: Any, division: str = "") -> list[str]:
    """Versions ("5.1.0") whose rules allow the benchmark, oldest first."""
    if not isinstance(benchmark, str):
        return []
    found = []
    for name in available_rulesets():
        if benchmark in benchmarks_of(name, division):
            found.append(name.removeprefix("training-"))
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))
