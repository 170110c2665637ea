"""The ranked results a round view starts from: the audit's results table
(``submission.ranking``) over the report's rows, results with anomalies of severity
``score`` or ``rules`` only (``info`` ones are counted per row); docs/report.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .collect import ReportData

if TYPE_CHECKING:  # imported where the table is made
    from ..submission.ranking import ResultRow

    class NamedResult(ResultRow):
        """A results-table row with the benchmark's name in its round (``with_names``)."""

        name: str


SHOWN = ("score", "rules")


def ranked_rows(data: ReportData, shown: tuple[str, ...] = SHOWN) -> list[ResultRow]:
    """One row per result whose worst anomaly is of a ``shown`` severity, rank order."""
    from ..submission.ranking import results_table

    return [r for r in results_table(data.scores, data.anomalies) if r["worst"] in shown]


def with_names(data: ReportData, rows: list[ResultRow]) -> list[NamedResult]:
    """The rows with ``name``: the benchmark their round means (``build.benchmark_name``:
    RetinaNet published in ``ssd/``), as every heading of the page names it."""
    from ..submission.ranking import key_of
    from .build import benchmark_name

    rulesets = {key_of(s): str(s.get("ruleset") or "") for s in data.scores}
    return [
        {**r, "name": benchmark_name(rulesets.get(key_of(r), ""), r["benchmark"])} for r in rows
    ]
