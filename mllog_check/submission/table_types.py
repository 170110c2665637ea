"""One Parquet schema per audit table, for every round and usage (docs/audit.md,
"Parquet schemas"): the same columns with the same types in a Training round's files
and an HPC round's, so that ``pd.concat`` and a pyarrow dataset read them together.

A column a round has no value for is there, null (``energy_j`` without power logs,
the weak-scaling ``models`` in Training). Types are those of the rows' own fields
(``results.scores.Score``, ``results.weak.WeakScore``): text ``string``, counts
``int64``, minutes, joules and ratios ``float64``, flags ``bool``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .package import AUDIT_RUN_COLUMNS
from .ranking import IMPACTS, RESULT_COLUMNS

# The runs table (package.AUDIT_RUN_COLUMNS): the log's declarations as text, counts,
# first run_start/run_stop time_ms (ms since the epoch, as logged), minutes, energy in J,
# power in W. Every column is named here (a test holds it to AUDIT_RUN_COLUMNS).
_RUN_NUMBERS = {
    "records": "int64",
    "parse_errors": "int64",
    "run_start_ms": "float64",
    "run_stop_ms": "float64",
    "minutes": "float64",
    "compliance_errors": "int64",
    "energy_j": "float64",
    "avg_power_w": "float64",
    "republished": "bool",
}
_RUN_TEXT: tuple[str, ...] = (
    "org",
    "system",
    "benchmark",
    "path",
    "submission_org",
    "division",
    "submission_status",
    "platform",
    "run_stop_status",
    "seed",
    "compliance",
    "body_sha1",
    "eval_curve_sha1",
    "round",
    "published",
    "benchmark_model",
)
RUN_TYPES: dict[str, str] = {
    c: _RUN_NUMBERS.get(c, "string")
    for c in AUDIT_RUN_COLUMNS
    if c in _RUN_NUMBERS or c in _RUN_TEXT
}

# The results table (ranking.RESULT_COLUMNS).
RESULT_TYPES: dict[str, str] = {
    **dict.fromkeys(RESULT_COLUMNS, "string"),
    "rank": "int64",
    "minutes": "float64",
    "copies": "int64",
    "minutes_without_copies": "float64",
    "valid": "bool",
    "republished": "bool",
    **{f"anomalies_{name}": "int64" for name in IMPACTS},
    "anomalies": "int64",
}


def _field_type(annotation: Any) -> str:
    text = str(annotation)
    if "bool" in text:
        return "bool"
    if "float" in text:
        return "float64"
    if text.startswith("int"):
        return "int64"
    return "string"


def _score_types() -> dict[str, str]:
    from ..results.scores import Score
    from ..results.weak import WeakScore

    types = {"scaling": "string"}  # MLPerf HPC: strong or weak; null in Training
    for kind in (Score, WeakScore):
        for f in dataclasses.fields(kind):
            types.setdefault(f.name, _field_type(f.type))
    # The audit's score without copied runs (submission/copies.py).
    types.update(copies="int64", minutes_without_copies="float64")
    return types


# The scores table: org, system, benchmark, then every other column in name order.
SCORE_TYPES: dict[str, str] = _score_types()
SCORE_COLUMNS: tuple[str, ...] = (
    "org",
    "system",
    "benchmark",
    *sorted(set(SCORE_TYPES) - {"org", "system", "benchmark"}),
)
