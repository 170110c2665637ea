"""The report's typed rows (html_report/collect.py, build.py, charts.py) follow the
columns they are built with and hold what a real round's page is made of."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, get_origin, get_type_hints

import pytest
from conftest import FIXTURES

from mllog_check.html_report.collect import PROBLEM_ROW, ProblemShown, RunShown
from mllog_check.problems import FIELDS


def typed(row: Mapping[str, object], kind: type, names: Mapping[str, object] | None = None) -> bool:
    """A row has its TypedDict's keys in order (the NotRequired ones where given), no
    other key, and each plain-typed cell its type (``names``: types its module imports
    for type checking only)."""
    hints = get_type_hints(kind, localns=dict(names or {}), include_extras=True)
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


@pytest.mark.corpus
def test_a_pages_views_are_their_types(corpus: Path) -> None:
    """The page of v5.0/Lenovo (power logs: energy efficiency) and v5.1/Oracle (priced by
    the sample catalog) as the template reads it: problem groups, glossary, headlines,
    efficiency and cost sections; split, its index lines."""
    from mllog_check.cost.compare import CostRow
    from mllog_check.html_report import build as b
    from mllog_check.html_report import build_page, collect
    from mllog_check.html_report.costs import add_costs
    from mllog_check.html_report.pages import split

    page = build_page(collect([str(corpus / "v5.0/Lenovo"), str(corpus / "v5.1/Oracle")], jobs=1))
    add_costs(page, [str(FIXTURES / "prices" / "sample.csv")])
    assert page.groups and all(typed(g, b.SeverityGroup) for g in page.groups)
    codes = [c for g in page.groups for c in g["codes"]]
    assert all(typed(c, b.CodeGroup) for c in codes)
    assert all(typed(i, b.ProblemItem) for c in codes for i in c["items"])
    assert page.glossary and all(typed(e, b.GlossaryEntry) for e in page.glossary)
    assert page.headlines and all(typed(h, b.Headline) for h in page.headlines)
    efficiency = [e for bench in page.benchmarks for e in bench.efficiency]
    assert efficiency and all(typed(e, b.EfficiencyView) for e in efficiency)
    assert page.cost and all(typed(c, b.CostSection, {"CostRow": CostRow}) for c in page.cost)
    assert all(isinstance(r, CostRow) for c in page.cost for r in c["rows"])
    split(page, "report_pages", "report.html")
    index = [e for bench in page.benchmarks for e in bench.index]
    assert index and all(typed(e, b.IndexEntry) for e in index)
    assert all(isinstance(e["best"], b.ResultSetView | None) for e in index)


def test_the_run_row_is_typed_as_the_audits_and_scores_rows() -> None:
    """RunShown holds AuditRun's and ScoreRun's keys with their types: a run row of
    either kind is one."""
    from mllog_check.results.scores import ScoreRun
    from mllog_check.submission.audit_rows import AuditRun

    hints = get_type_hints(RunShown)
    for kind in (AuditRun, ScoreRun):
        assert {k: v for k, v in get_type_hints(kind).items() if k != "compliant"} == {
            k: hints[k] for k in get_type_hints(kind) if k != "compliant"
        }
    assert hints["compliant"] == get_type_hints(ScoreRun)["compliant"]


@pytest.mark.corpus
def test_a_pages_run_rows_are_its_run_type(corpus: Path) -> None:
    """The runs of an org (the audit's rows) and of a result folder (score's rows), as
    collected and as the page's result views hold them, have only RunShown's keys, each
    of its type where plain."""
    from mllog_check.html_report import build_page, collect

    hints = get_type_hints(RunShown)
    plain = {k: v for k, v in hints.items() if isinstance(v, type)}

    def shown(run: Mapping[str, object]) -> bool:
        types = all(isinstance(run[k], v) for k, v in plain.items() if k in run)
        return set(run) <= set(hints) and types

    org = corpus / "v5.0" / "Lenovo"  # power logs: energy in kWh
    folder = next((corpus / "v4.1" / "Google" / "results").iterdir())
    for path in (org, folder):
        page = build_page(collect([str(path)], jobs=1))
        assert page.data.runs and all(shown(r) for r in page.data.runs), path
        views = [r for s in page.sets for r in s.runs]
        assert views and all(shown(r) for r in views), path
        assert all({"file", "stop_line", "state"} <= set(r) for r in views)
        assert any("energy_kwh" in r for r in views) == (path == org)
