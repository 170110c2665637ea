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
