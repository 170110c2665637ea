"""Perf per dollar and cost per run for the report (``--prices``), through ``mllog_check.cost``.

The comparison keeps the ``cost`` command's honesty rules: never across divisions or
rounds (one section each), the disclaimer, every price's source and date, footnotes
for RCP verdicts and invalid results, and the systems no catalog prices named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .build import Page, slug
from .charts import Chart, Point, Series, fmt

if TYPE_CHECKING:  # the score rows (ReportData.scores, .weak)
    from ..results.scores import ScoreRow


def _score(row: ScoreRow) -> Any:
    from ..results import Score
    from ..results.scores import score_of

    return score_of(row, Score)


def _per_model(rows: list[ScoreRow]) -> list[Any]:
    """MLPerf HPC weak-scaling results priced per model, as the cost command does."""
    if not rows:
        return []
    from ..results.scores import score_of
    from ..results.weak import WeakScore, per_model_scores

    return list(per_model_scores([score_of(r, WeakScore) for r in rows]))


def add_costs(page: Page, price_files: list[str]) -> None:
    from ..cost import CostError, compare, load_catalogs
    from ..cost.output import full_note, sources

    prices = load_catalogs(price_files)
    groups: dict[tuple[str, str], list[Any]] = {}
    for score in [*map(_score, page.data.scores), *_per_model(page.data.weak)]:
        division = str(score.division or "unknown").lower()
        groups.setdefault((division, score.ruleset), []).append(score)
    unpriced = []
    for (division, ruleset), scores in sorted(groups.items()):
        priced = [s for s in scores if any(p.matches(s.system) for p in prices)]
        priced += [
            s
            for s in scores
            if s not in priced and s.system_name and any(p.matches(s.system_name) for p in prices)
        ]
        unpriced += [f"{s.org} {s.system} ({s.benchmark})" for s in scores if s not in priced]
        if not priced:
            continue
        title = f"{division} division, round {ruleset}"
        try:
            report = compare(priced, prices)
        except CostError as err:
            page.cost_notes.append(f"{title}: not compared: {err}")
            continue
        page.cost.append(
            {
                "title": title,
                "unit": report.perf_unit,
                "rows": report.rows,
                "charts": _charts(report, division, ruleset),
                "sources": sources(report),
                "footnotes": [full_note(report)],
            }
        )
    if unpriced:
        page.cost_notes.append(
            f"Not priced by the catalogs ({len(unpriced)}), left out: " + ", ".join(unpriced)
        )


def _charts(report: Any, division: str, ruleset: str) -> list[Chart]:
    from ..cost.compare import HOURLY_PERF_UNIT, PERF_UNIT

    charts = []
    for bench in sorted({r.benchmark for r in report.rows}):
        rows = [r for r in report.rows if r.benchmark == bench]
        for field, label, unit in (
            ("perf_per_dollar", "perf per dollar", PERF_UNIT),
            ("runs_per_1k", "perf per dollar of rental", HOURLY_PERF_UNIT),
            ("cost_per_run", "cost per run", rows[0].currency),
        ):
            shown = [r for r in rows if getattr(r, field) is not None]
            if not shown:
                continue
            chart = Chart(
                slug("cost", field, division, ruleset, bench),
                "bar",
                f"{bench}: {label} ({division}, {ruleset}; not an official MLPerf metric)",
                unit,
            )
            points = []
            for index, row in enumerate(shown):
                value = float(getattr(row, field))
                chart.rows.append(f"{row.org} · {row.system}")
                tip = (
                    f"{row.org} {row.system}: {fmt(value)} {unit} · {fmt(row.minutes)} min at "
                    f"{row.currency} {fmt(row.price)} ({row.price_kind}, {row.price_source}, "
                    f"{row.price_date})"
                )
                points.append(Point(value, index, tip))
            chart.series.append(Series(label, points, 0))
            chart.caption = (
                "Derived from MLPerf results and third-party prices; not verified by MLCommons. "
                "Sources and notes below."
            )
            charts.append(chart)
    return charts
