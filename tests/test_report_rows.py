"""The report's typed rows (html_report/collect.py, build.py, charts.py) follow the
columns they are built with and hold what a real round's page is made of."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import get_type_hints

import pytest

from mllog_check.html_report.collect import PROBLEM_ROW, ProblemShown
from mllog_check.problems import FIELDS


def typed(row: Mapping[str, object], kind: type) -> bool:
    """A row has its TypedDict's keys, in order, and each plain-typed cell its type."""
    hints = get_type_hints(kind)
    plain = {k: v for k, v in hints.items() if isinstance(v, type)}
    return list(row) == list(hints) and all(isinstance(row[k], v) for k, v in plain.items())


def test_the_problem_row_is_its_org_then_a_problems_fields() -> None:
    assert PROBLEM_ROW == tuple(get_type_hints(ProblemShown)) == ("org", *FIELDS)


@pytest.mark.corpus
def test_a_rounds_problem_and_anomaly_rows_are_their_types(corpus: Path) -> None:
    """v4.1 (two orgs) as the report collects it: every problem and anomaly row."""
    from mllog_check.html_report import collect
    from mllog_check.submission.ranking import AnomalyRow

    data = collect([str(corpus / "v4.1")], jobs=1)
    assert data.problems and data.anomalies
    assert all(typed(p, ProblemShown) for p in data.problems)
    assert all(typed(a, AnomalyRow) for a in data.anomalies)
