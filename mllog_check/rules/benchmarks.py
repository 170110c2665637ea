"""Which rounds have a benchmark: asked of the round registry (schemas/rounds.yaml).

Used by MLC050 (a benchmark the chosen round does not have) to name the rounds that
do. A log names a benchmark by the name the round's rules use, so the registry's other
names (folder spellings such as "retinanet" for v2.0-v4.1's "ssd") do not count here.
"""

from __future__ import annotations

from typing import Any


def rounds_with(benchmark: Any) -> list[str]:
    """Versions ("5.1.0") whose benchmark list names it, oldest first."""
    if not isinstance(benchmark, str):
        return []
    from ..rounds import all_rounds

    wanted = benchmark.strip().lower()
    return [
        r.version
        for r in all_rounds()
        if r.has_rules() and any(b.name == wanted for b in (r.benchmarks or {}).values())
    ]


def benchmarks_of(ruleset: str, division: str = "") -> frozenset[str]:
    """The submission_benchmark values a ruleset's rules allow (one division, or any):
    the rules' own statement, which tests hold equal to the registry's."""
    from .loader import load_ruleset

    allowed: set[str] = set()
    for section in load_ruleset(ruleset).sections.values():
        if division and section.name not in (division, "common"):
            continue
        spec = section.keys.get("submission_benchmark")
        if spec is not None and spec.value is not None:
            schema = spec.value.schema
            values = schema.get("enum", [schema["const"]] if "const" in schema else [])
            allowed.update(v for v in values if isinstance(v, str))
    return frozenset(allowed)
