"""The ranked results a round view starts from: the audit's results table
(``submission.ranking``) over the report's rows, results with anomalies of severity
``score`` or ``rules`` only (``info`` ones are counted per row); docs/report.md."""

from __future__ import annotations

from typing import Any

from .collect import ReportData

SHOWN = ("score", "rules")


def ranked_rows(data: ReportData, shown: tuple[str, ...] = SHOWN) -> list[dict[str, Any]]:
    """One row per result whose worst anomaly is of a ``shown`` severity, rank order."""
    from ..submission.ranking import results_table

    return [r for r in results_table(data.scores, data.anomalies) if r["worst"] in shown]
