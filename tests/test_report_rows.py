"""The report's typed rows (html_report/collect.py, build.py, charts.py) follow the
columns they are built with and hold what a real round's page is made of."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, get_origin, get_type_hints

import pytest
from conftest import FIXTURES

from mllog_check.html_report.collect import PROBLEM_ROW, ProblemShown
from mllog_check.problems import FIELDS


def typed(row: Mapping[str, object], kind: type) -> bool:
    """A row has its TypedDict's keys in order (the NotRequired ones where given), no
    other key, and each plain-typed cell its type."""
    hints = get_type_hints(kind, include_extras=True)
    optional = {k for k, hint in hints.items() if get_origin(hint) is NotRequired}
    required = [k for k in hints if k not in optional]
    plain = {k: v for k, v in hints.items() if isinstance(v, type) and k in row}
    order = list(row) == [k for k in hints if k in row]
    return (
        order and set(required) <= set(row) and all(isinstance(row[k], v) for k, v in plain.items())
    )


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


@pytest.mark.corpus
def test_a_pages_chart_geometry_is_its_types(corpus: Path) -> None:
    """Every chart of the pages of v4.1, v5.1/Oracle and hpc-v3.0 with prices (strips,
    bars, curves) as the template reads it: its Geometry, series, points, ticks, rows,
    marks, lines and bands."""
    from mllog_check.html_report import build_page, collect
    from mllog_check.html_report import charts as c
    from mllog_check.html_report.costs import add_costs

    parts = {
        "xticks": c.XMark,
        "yticks": c.YMark,
        "rows": c.RowLabel,
        "marks": c.MeanMark,
        "hlines": c.YMark,
        "vlines": c.XMark,
        "vbands": c.Band,
    }
    kinds, drawn = set(), set()
    for folder in ("v4.1", "v5.1/Oracle", "hpc-v3.0"):
        page = build_page(collect([str(corpus / folder)], jobs=1))
        add_costs(page, [str(FIXTURES / "prices" / "sample.csv")])
        for chart in page.charts():
            kinds.add(chart.kind)
            frame = c.geometry(chart)
            assert typed(frame, c.Geometry), chart.id
            for name, kind in parts.items():
                assert all(typed(item, kind) for item in frame[name]), (chart.id, name)
                drawn |= {name} if frame[name] else set()
            for series in frame["series"]:
                assert typed(series, c.SeriesView), chart.id
                assert all(typed(p, c.PointView) for p in series["pts"]), chart.id
    assert kinds == {"strip", "bar", "curve"}
    assert drawn == set(parts)
