"""The page's content from the collected rows: summary rows, charts, problem groups."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ..results.scoring import known_scoring
from .charts import Chart, Point, Series, fmt
from .collect import ReportData, RunShown
from .curves import RunCurve, x_axis

if TYPE_CHECKING:  # the score rows (ReportData.scores, .weak) and a cost section's rows
    from ..cost.compare import CostRow
    from ..results.scores import ScoreRow

Key = tuple[str, str, str]  # org, system, benchmark
SEVERITIES = ("error", "warning", "info")
# Energy per run as a later stage may add it to the runs rows: column -> factor to kWh.
EnergyColumn = Literal["energy_kwh", "energy_wh", "energy_j"]
ENERGY_COLUMNS: dict[EnergyColumn, float] = {
    "energy_kwh": 1.0,
    "energy_wh": 1e-3,
    "energy_j": 1 / 3.6e6,
}
TARGET_WORDS = {"min": "≥", "max": "≤", "above": ">", "below": "<"}


class ProblemItem(TypedDict):
    """A problem or an anomaly as its code's list shows it."""

    path: str
    line: int
    message: str  # an anomaly's: its kind, then its message
    what: str  # problem or anomaly


class CodeGroup(TypedDict):
    """A code's problems and anomalies, and how many of each (``kinds``)."""

    code: str
    name: str
    items: list[ProblemItem]
    kinds: Counter[str]


class SeverityGroup(TypedDict):
    """A severity's codes, and how many items they hold."""

    severity: str
    codes: list[CodeGroup]
    total: int


class GlossaryEntry(TypedDict):
    """A code shown on the page, as the catalog tells it."""

    code: str
    name: str
    severity: str
    summary: str
    rationale: str


class EfficiencyView(TypedDict):
    """A result's energy efficiency row (``results.efficiency.EfficiencyRow``), in the
    page's units."""

    rank: int
    org: str
    system: str
    hardware: str
    kwh: float
    runs_per_mwh: float
    kwh_per_accelerator: float | None
    avg_kw: float | None
    node_pct: float | None
    switch_pct: float | None
    perf_per_watt: float | None
    official: bool


class Headline(TypedDict):
    """A benchmark's fastest result that counts: by whom, on what, in which round."""

    benchmark: str
    minutes: float
    org: str
    system: str
    hardware: str
    rounds: str  # the round's folder when the page spans several, else ""
    division: str


class Submitter(TypedDict):
    """Who submitted what, on what: an org's line at the top of the page."""

    org: str
    passed: bool | None  # the org's verdict (None: an org of result folders only)
    systems: list[str]  # the systems' names, as the descriptions give them
    hardware: list[str]  # "B200 (8-72)": each accelerator model and the counts used
    benchmarks: list[str]  # as the round names them
    results: int


class IndexEntry(TypedDict):
    """A line of a main page's index (pages.py): a round, its detail page, its fastest
    valid result (closed first)."""

    round: str
    href: str
    results: int
    best: ResultSetView | None


class CostSection(TypedDict):
    """A division and round's perf per dollar (costs.py): rows, charts and notes."""

    title: str
    unit: str
    rows: list[CostRow]
    charts: list[Chart]
    sources: list[str]
    footnotes: list[str]


@dataclass
class ResultSetView:
    key: Key
    anchor: str
    folder: str
    score: Mapping[str, Any]  # its ScoreRow; {"valid": False} for runs without a score
    # Its runs' rows, with "file", "stop_line", "state" and the energy in kWh added.
    runs: list[RunShown] = field(default_factory=list)
    drop: int | None = None
    # The round's scoring data, looked up once per view (None: the round has none).
    scoring: Any = None
    errors: int = 0
    warnings: int = 0
    anomalies: int = 0
    energy_kwh: float | None = None  # mean over runs that have it
    energy_runs: int = 0
    curves: list[Chart] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def org(self) -> str:
        return self.key[0]

    @property
    def system(self) -> str:
        return self.key[1]

    @property
    def benchmark(self) -> str:
        """The benchmark folder's name (``ssd`` holds RetinaNet in v2.0-v4.1)."""
        return self.key[2]

    @property
    def name(self) -> str:
        """The benchmark the round means by its folder (``rounds.current_benchmark_name``:
        v2.0-v4.1 ``ssd`` is ``retinanet``): what the page groups and heads by."""
        return benchmark_name(str(self.score.get("ruleset") or ""), self.benchmark)

    @property
    def hardware(self) -> str:
        """ "8 × B200": the accelerator count and short model (docs/scores.md)."""
        from ..results.hardware import short_accelerator

        count = self.score.get("accelerators")
        get = self.score.get
        model = short_accelerator(get("accelerator_model"), get("system_name"), get("host"))
        if count and model:
            return f"{count} × {model}"
        return str(count or model or "")

    @property
    def energy_method(self) -> str:
        """official, or readings over the run when the score or any run says so."""
        methods = {self.score.get("energy_method") or ""}
        methods |= {r.get("energy_method") or "" for r in self.runs if "energy_kwh" in r}
        methods.discard("")
        return "official" if methods <= {"official"} else "readings over the run"

    @property
    def verdict(self) -> str:
        if self.score.get("minutes") is None and not self.score.get("valid"):
            return "FAIL" if self.runs else "NOT SCORED"
        return "FAIL" if self.errors or not self.score.get("valid") else "PASS"


@dataclass
class BenchmarkView:
    name: str
    sets: list[ResultSetView]
    charts: list[Chart] = field(default_factory=list)
    efficiency: list[EfficiencyView] = field(default_factory=list)  # energy, ranked
    # A main page of several pages (pages.py): a line per round, linking its detail page.
    index: list[IndexEntry] = field(default_factory=list)


@dataclass
class Page:
    data: ReportData
    sets: list[ResultSetView]
    benchmarks: list[BenchmarkView]
    groups: list[SeverityGroup]
    glossary: list[GlossaryEntry]
    cost: list[CostSection] = field(default_factory=list)
    cost_notes: list[str] = field(default_factory=list)
    # MLPerf HPC weak scaling: its rows (data.weak) and one chart per benchmark
    weak_charts: list[Chart] = field(default_factory=list)
    # Problems shown inline per code; all of them are in the side file (docs/report.md).
    inline_problems: int = 100
    problems_file: str = ""  # its href, "" when every problem is inline
    problems_file_name: str = ""
    org_notes: dict[str, str] = field(default_factory=dict)  # org -> counts not in its rows
    headlines: list[Headline] = field(default_factory=list)  # best per benchmark
    who: list[Submitter] = field(default_factory=list)  # who submitted what, on what
    trends: list[Chart] = field(default_factory=list)  # best per round, several rounds
    # A report of many rounds is a folder of pages (pages.py): the main page's links to
    # each result's detail page (by its anchor), a detail page's title and way back.
    split: bool = False
    detail_href: dict[str, str] = field(default_factory=dict)
    detail: str = ""
    home: str = ""

    def problems_cut(self) -> bool:
        return any(len(c["items"]) > self.inline_problems for g in self.groups for c in g["codes"])

    def charts(self) -> list[Chart]:
        out = list(self.trends) + [c for b in self.benchmarks for c in b.charts]
        out += list(self.weak_charts)
        if not self.split:  # a main page's results draw their curves on detail pages
            out += [c for s in self.sets for c in s.curves]
        return out + [c for section in self.cost for c in section["charts"]]


def benchmark_view(name: str, group: list[ResultSetView]) -> BenchmarkView:
    """A benchmark's section: time to train per run, and energy where measured."""
    view = BenchmarkView(name, group)
    view.charts.append(time_chart(name, group))
    energy = energy_chart(name, group)
    if energy is not None:
        view.charts.append(energy)
        view.efficiency = efficiency(group)
    return view


def benchmark_name(ruleset: str, folder: str) -> str:
    """The name a round gives a benchmark folder; the folder's own without a round."""
    from ..rounds import current_benchmark_name

    return current_benchmark_name(ruleset, folder) if ruleset else folder


def slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(parts)).strip("-").lower()


def unique_ids(charts: list[Chart]) -> None:
    """Chart ids (the page's element ids, the --plots file names) made unique: names
    that differ only in case, punctuation or letters a slug drops (look-alike orgs)
    give one slug; the second gets -2, and so on. Compared without case: file
    systems that ignore it would still put two charts in one file."""
    seen: set[str] = set()
    for chart in charts:
        base, count = chart.id, 1
        while chart.id.lower() in seen:
            count += 1
            chart.id = f"{base}-{count}"
        seen.add(chart.id.lower())


def build_page(data: ReportData) -> Page:
    sets = _result_sets(data)
    benchmarks = []
    for name in sorted({s.name for s in sets}):
        group = [s for s in sets if s.name == name]
        group.sort(key=_speed)
        benchmarks.append(benchmark_view(name, group))
    groups, glossary = problem_groups(data)
    page = Page(data, sets, benchmarks, groups, glossary)
    page.weak_charts = weak_charts(data)
    page.org_notes = org_notes(data, sets)
    page.headlines = headlines(benchmarks, len(data.rulesets) > 1)
    page.who = submitters(data, sets)
    page.trends = trend_charts(data.scores)
    return page


def trend_charts(scores: list[ScoreRow]) -> list[Chart]:
    """A bar per round at the best result of each benchmark found in several rounds
    (``results.trends``: renamed benchmarks on one line)."""
    from types import SimpleNamespace

    from ..results.trends import ALL_SCALES, best_per_round

    rows = best_per_round([SimpleNamespace(**score) for score in scores if "valid" in score])
    lines: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for row in rows:
        if row.scale == ALL_SCALES and not row.excluded:  # one bar a round: what counts
            lines[(row.benchmark, row.division)].append(row)
    charts = []
    for (name, division), line in sorted(lines.items()):
        if len(line) < 2:
            continue
        chart = Chart(
            slug("trend", name, division),
            "bar",
            f"{name} ({division}): best time to train per round",
            "minutes",
            context=name,
        )
        chart.rows = [r.round for r in line]
        points = []
        for index, r in enumerate(line):
            faster = "" if r.speedup is None else f", {r.speedup:.2f}× the round before"
            published = "" if r.published_as == name else f" (published as {r.published_as})"
            tip = (
                f"{r.round}: {fmt(r.minutes)} min{faster} · {r.org} {r.system_name or r.system}"
                f" · {r.accelerators or '?'} accelerators{published}"
            )
            points.append(Point(r.minutes, index, tip))
        chart.series.append(Series(name, points, 0))
        charts.append(chart)
    return charts


def efficiency(views: list[ResultSetView]) -> list[EfficiencyView]:
    """The results with an energy score ranked least energy per run first
    (``results.efficiency``): kWh per run, runs per MWh, kWh per run per accelerator,
    mean power, node and switch shares, runs per hour per kW (docs/power.md)."""
    from types import SimpleNamespace

    from ..power import average_power, perf_per_watt
    from ..results.efficiency import J_PER_KWH, efficiency_rows

    scored = []
    for view in views:
        if view.energy_kwh is None:
            continue
        row = dict(view.score)
        row.update(
            org=view.org,
            system=view.system,
            benchmark=view.benchmark,
            ruleset=str(row.get("ruleset") or ""),
            division=row.get("division"),
            energy_j=view.energy_kwh * J_PER_KWH,
            energy_method=view.energy_method,
            accelerators=row.get("accelerators"),
            accelerator_model=row.get("accelerator_model"),
            minutes=row.get("minutes"),
        )
        if row.get("avg_power_w") is None:  # rows without it: the score's energy over its time
            row["avg_power_w"] = average_power(row["energy_j"], row["minutes"])
            row["perf_per_watt"] = perf_per_watt(row["minutes"], row["avg_power_w"])
        scored.append(SimpleNamespace(**row))
    hardware = {(v.org, v.system): v.hardware for v in views}
    return [
        {
            "rank": r.rank,
            "org": r.org,
            "system": r.system,
            "hardware": hardware.get((r.org, r.system), ""),
            "kwh": r.kwh_per_run,
            "runs_per_mwh": r.runs_per_mwh,
            "kwh_per_accelerator": r.kwh_per_accelerator,
            "avg_kw": None if r.avg_power_w is None else r.avg_power_w / 1000.0,
            "node_pct": None if r.node_share is None else 100.0 * r.node_share,
            "switch_pct": None if r.switch_share is None else 100.0 * r.switch_share,
            "perf_per_watt": r.perf_per_watt,
            "official": r.method == "official",
        }
        for r in efficiency_rows(scored)
    ]


def headlines(benchmarks: list[BenchmarkView], rounds: bool) -> list[Headline]:
    """Per benchmark the fastest result that counts (valid, RCP not failed): by whom,
    on what, at what scale; the round too when the page spans several."""
    lines: list[Headline] = []
    for bench in benchmarks:
        best = [s for s in bench.sets if _counts(s.score)]
        if not best:
            continue
        # Closed results when there are any: an open result's faster time is another race.
        closed = [s for s in best if s.score.get("division") == "closed"]
        top = min(closed or best, key=lambda s: (float(s.score["minutes"]), s.key))
        ruleset = str(top.score.get("ruleset") or "")
        lines.append(
            {
                "benchmark": bench.name,
                "minutes": top.score["minutes"],
                "org": top.org,
                "system": top.score.get("system_name") or top.system,
                "hardware": top.hardware,
                "rounds": _round_label(ruleset) if rounds else "",
                "division": str(top.score.get("division") or ""),
            }
        )
    return lines


def submitters(data: ReportData, sets: list[ResultSetView]) -> list[Submitter]:
    """An org a line, in the page's order of orgs: its verdict, its systems, the
    accelerators they ran on (each model with the counts used), its benchmarks."""
    from ..results.hardware import short_accelerator

    by_org: dict[str, list[ResultSetView]] = defaultdict(list)
    for view in sets:
        by_org[view.org].append(view)
    verdicts = {o["org"]: bool(o["passed"]) for o in data.orgs}
    names = [o["org"] for o in data.orgs] + sorted(set(by_org) - set(verdicts))
    lines: list[Submitter] = []
    for org in names:
        mine = by_org.get(org, [])
        counts: dict[str, set[int]] = defaultdict(set)
        for view in mine:
            get = view.score.get
            model = short_accelerator(get("accelerator_model"), get("system_name"), get("host"))
            count = get("accelerators")
            counts[model or "accelerator not described"].update(
                [count] if isinstance(count, int) and count > 0 else []
            )
        lines.append(
            {
                "org": org,
                "passed": verdicts.get(org),
                "systems": sorted({str(v.score.get("system_name") or v.system) for v in mine}),
                "hardware": [_counts_used(m, c) for m, c in sorted(counts.items())],
                "benchmarks": sorted({v.name for v in mine}),
                "results": len(mine),
            }
        )
    return lines


def _counts_used(model: str, counts: set[int]) -> str:
    """ "B200 (8-72)", "H100 (8)", or the model alone without counts."""
    if not counts:
        return model
    low, high = min(counts), max(counts)
    return f"{model} ({low:,})" if low == high else f"{model} ({low:,}-{high:,})"


def _counts(score: Mapping[str, Any]) -> bool:
    minutes = score.get("minutes")
    if not score.get("valid") or not isinstance(minutes, int | float):
        return False
    return score.get("division") != "closed" or score.get("rcp_verdict") in (None, "Pass")


def _round_label(ruleset: str) -> str:
    from ..rounds import RoundError, parse_round

    try:
        return parse_round(ruleset).folder
    except RoundError:
        return ruleset


def org_notes(data: ReportData, sets: list[ResultSetView]) -> dict[str, str]:
    """Why an org's counts differ from its rows': errors and warnings outside every
    result folder (system descriptions, stray files), so a FAIL is never unexplained."""
    notes = {}
    for org in data.orgs:
        rows = [s for s in sets if s.org == org["org"]]
        errors = int(org.get("errors") or 0) - sum(s.errors for s in rows)
        warnings = int(org.get("warnings") or 0) - sum(s.warnings for s in rows)
        parts = [f"{n} {word}" for n, word in ((errors, "errors"), (warnings, "warnings")) if n > 0]
        if parts:
            notes[org["org"]] = (
                f"{' and '.join(parts)} outside the result rows below "
                "(system descriptions, the org's layout): see Problems"
            )
    return notes


def _speed(view: ResultSetView) -> tuple[bool, float, Key]:
    minutes = view.score.get("minutes")
    return (minutes is None, minutes or 0.0, view.key)


# -- result sets ----------------------------------------------------------------------


def _org_label(org: str, folder: str, audited: set[str]) -> str:
    """The org as its folder shows it: ``v1.1/Google`` when a report spans rounds, so
    that one org's results of two rounds stay apart. An audited org is named as the
    audit's rows name it (a v0.5 submission folder by its own name: docs/audit.md)."""
    if org in audited:
        return org
    prefix, found, _ = folder.partition("/results/")
    return prefix if found and prefix else org


def _result_sets(data: ReportData) -> list[ResultSetView]:
    weak_folders = {w.get("folder") for w in data.weak}  # shown as weak scaling instead
    audited = {o["org"] for o in data.orgs}
    by_key: dict[Key, ResultSetView] = {}
    for score in data.scores:
        folder = score.get("folder") or ""
        key = (_org_label(score["org"], folder, audited), score["system"], score["benchmark"])
        by_key[key] = ResultSetView(key, slug("rs", *key), folder, score)
    for run in data.runs:
        folder = os.path.dirname(run["path"])
        if folder in weak_folders:
            continue
        key = (_org_label(run["org"], folder, audited), run["system"], run["benchmark"])
        if key not in by_key:
            by_key[key] = ResultSetView(key, slug("rs", *key), folder, {"valid": False})
        curve = data.curves.get(run["path"])
        stop_line = curve.stop_line if curve else 0
        by_key[key].runs.append(
            {**run, "file": os.path.basename(run["path"]), "stop_line": stop_line}
        )
    views = [by_key[k] for k in sorted(by_key)]
    _count_problems(data, views)
    for view in views:
        view.scoring = known_scoring(str(view.score.get("ruleset") or ""))
        _approximated(data, view)
        _mark_runs(view)
        _energy(view)
        view.curves = curve_charts(data, view)
    return views


def _view_of(path: str, by_folder: dict[str, ResultSetView]) -> ResultSetView | None:
    """The result a path belongs to: its folder, or the nearest folder above it (power
    logs sit in <benchmark>/power/result_N/)."""
    while path:
        if path in by_folder:
            return by_folder[path]
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return None


def _count_problems(data: ReportData, views: list[ResultSetView]) -> None:
    by_folder = {v.folder: v for v in views if v.folder}
    for problem in data.problems:
        view = _view_of(problem["path"], by_folder)
        if view is None:
            continue
        if problem["severity"] == "error":
            view.errors += 1
        elif problem["severity"] == "warning":
            view.warnings += 1
    for anomaly in data.anomalies:
        view = _view_of(anomaly["path"], by_folder)
        if view is not None:
            view.anomalies += 1


def _drop(view: ResultSetView) -> int | None:
    """Runs dropped from each end; None for a round or benchmark without scoring data."""
    bench = view.scoring.benchmarks.get(view.benchmark) if view.scoring else None
    return None if bench is None else int(bench.drop)


def counted(run: RunShown) -> bool:
    """Enters the olympic mean's sorted list: compliant and timed (as the scorer)."""
    if "counted" in run:
        return bool(run["counted"])
    compliance = run.get("compliance") or ""
    ok = compliance == "pass" or (not compliance and run.get("run_stop_status") == "success")
    return ok and run.get("minutes") is not None


def _approximated(data: ReportData, view: ResultSetView) -> None:
    """Rounds whose scoring approximates compliance (v0.6: the rules cannot decide):
    a run counts when it converged (status success, target reached) with a clean parse,
    as the scores stage counts it, whatever the compliance column says."""
    scoring = view.scoring
    bench = scoring.benchmarks.get(view.benchmark) if scoring else None
    if bench is None or not getattr(scoring, "approximate_compliance", None):
        return
    for run in view.runs:
        curve = data.curves.get(run["path"])
        reached = curve is not None and any(bench.reached(p.value) for p in curve.points)
        clean = not run.get("parse_errors")
        status = run.get("run_stop_status")
        # A log with no status converged when its evaluations reached the target where
        # the round says so (results.runs.Run.succeeded): v0.6 MiniGo has no run_stop
        # (timed by its eval_result); v0.5 and HPC v0.7 logs may state no status.
        unlogged = bench.timed_by == "eval_result" or bench.status_from_target
        converged = reached and (status == "success" or (not status and unlogged))
        run["counted"] = converged and clean and run.get("minutes") is not None


def _mark_runs(view: ResultSetView) -> None:
    """kept, dropped (fastest / slowest, olympic mean) or failed (not counted)."""
    view.drop = _drop(view)
    timed = sorted((r for r in view.runs if counted(r)), key=lambda r: (r["minutes"], r["path"]))
    failed = len(view.runs) - len(timed)
    for run in view.runs:
        run["state"] = "kept" if counted(run) else "failed"
    if view.drop is None:
        view.notes.append("no scoring data for this round: no run marked as dropped")
        return
    slowest = max(view.drop - failed, 0)
    for run in timed[: view.drop] + timed[len(timed) - slowest :][:slowest]:
        run["state"] = "dropped"


def _energy(view: ResultSetView) -> None:
    """Energy per run (kWh), and the result's energy score: the scores stage's
    (``energy_j``: olympic mean, scaled as the time score) when it has one, else the
    olympic mean of the counted runs' energies ranked by time to train
    (``power.olympic_energy``), else the plain mean."""
    values = []
    for run in view.runs:
        for column, factor in ENERGY_COLUMNS.items():
            value = run.get(column)
            if isinstance(value, int | float) and not isinstance(value, bool):
                run["energy_kwh"] = float(value) * factor
                values.append(run["energy_kwh"])
                break
    if not values:
        return
    view.energy_runs = len(values)
    view.energy_kwh = sum(values) / len(values)
    scored = view.score.get("energy_j")
    if isinstance(scored, int | float) and not isinstance(scored, bool):
        view.energy_kwh = float(scored) * ENERGY_COLUMNS["energy_j"]  # the scores stage's
        return
    timed = [r for r in view.runs if counted(r)]
    if view.drop is None or any("energy_kwh" not in r for r in timed):
        view.notes.append("energy: the plain mean over the runs that have it")
        return
    from ..power import olympic_energy

    failed = len(view.runs) - len(timed)
    times = [m for r in timed if (m := r.get("minutes")) is not None]  # all: counted, timed
    score = olympic_energy([r["energy_kwh"] for r in timed], times, view.drop, failed)
    if score is not None:
        view.energy_kwh = score


# -- time to train and energy ---------------------------------------------------------


def _run_tip(view: ResultSetView, run: RunShown, what: str) -> str:
    line = f":{run['stop_line']}" if run.get("stop_line") else ""  # the run_stop record
    return (
        f"{view.org} {view.system} · {run['file']} ({run['state']}) · {what} · {run['path']}{line}"
    )


def time_chart(benchmark: str, views: list[ResultSetView]) -> Chart:
    """A row per system, a dot per timed run; dropped runs hollow, failed crossed."""
    chart = Chart(
        slug("ttt", benchmark),
        "strip",
        f"{benchmark}: time to train per run",
        "minutes (log scale)",
    )
    for index, view in enumerate(views):
        chart.rows.append(f"{view.org} · {view.system}")
        points = [
            Point(minutes, index, _run_tip(view, r, f"{fmt(minutes)} min"), r["state"])
            for r in view.runs
            if (minutes := r.get("minutes")) is not None
        ]
        chart.series.append(Series(f"{view.org} {view.system}", _on_top(points), index))
        mark = _score_mark(view)
        if mark is not None:
            chart.marks.append((mark[0], index, mark[1]))
    xs = [p.x for s in chart.series for p in s.points if p.x > 0]
    chart.x_log = bool(xs) and max(xs) / min(xs) > 8
    if not chart.x_log:
        chart.x_label = "minutes"
    chart.caption = (
        "Every timed run is a dot at its own time; the bar is the score (the olympic mean, "
        "times the scaling factor where one applies, so a scaled result's bar may sit away "
        "from its dots). Hollow rings are runs the olympic mean drops (fastest and slowest), "
        "drawn over any run at the same time; crosses are runs that do not count (not "
        "compliant, not converged)."
    )
    return chart


def weak_charts(data: ReportData) -> list[Chart]:
    """MLPerf HPC weak scaling, one chart per benchmark: models trained against minutes
    since the first model started, a line per system (docs/hpc.md)."""
    charts = []
    for benchmark in sorted({w["benchmark"] for w in data.weak}):
        chart = Chart(
            slug("weak", benchmark),
            "curve",
            "weak scaling: models trained over time",
            "minutes since the first model started",
            "models trained",
        )
        rows = [w for w in data.weak if w["benchmark"] == benchmark]
        for index, weak in enumerate(rows):
            chart.series.append(_weak_series(data, weak, index))
        chart.caption = (
            "Each step is a model whose run stops (compliant models only, as the score "
            "counts them); the line ends at the time to train all. Throughput: models per "
            "minute."
        )
        chart.context = benchmark
        charts.append(chart)
    return charts


def _weak_series(data: ReportData, weak: ScoreRow, index: int) -> Series:
    folder = weak.get("folder") or ""
    counted = [r for r in data.runs if os.path.dirname(r["path"]) == folder and counted_model(r)]
    times = []
    for run in counted:
        curve = data.curves.get(run["path"])
        if curve is not None and curve.start_ms is not None and curve.stop_ms is not None:
            times.append((curve.start_ms, curve.stop_ms, os.path.basename(run["path"])))
    label = f"{weak['org']} · {weak.get('system_name') or weak['system']}"
    if not times:
        return Series(label, [], index, line=True)
    first = min(t[0] for t in times)
    points = [Point(0.0, 0.0, f"{label}: first model starts")]
    for count, (_, stop, name) in enumerate(sorted(times, key=lambda t: t[1]), start=1):
        minutes = (stop - first) / 60_000.0
        points.append(
            Point(minutes, float(count), f"{label}: {name} done, {count} at {fmt(minutes)} min")
        )
    rate = weak.get("models_per_minute")
    tip = f"{label}: {weak.get('models')} models of {weak.get('instance_scale')} accelerators"
    tip += f", {fmt(rate)} models/min" if rate else ""
    return Series(label, points, index, line=True, tip=tip)


def counted_model(run: RunShown) -> bool:
    """A weak-scaling model the score counts: compliant and timed."""
    return run.get("compliance") in ("pass", True) and run.get("minutes") is not None


def _score_mark(view: ResultSetView) -> tuple[float, str] | None:
    """Where the bar goes: the score (scaled olympic mean), with what it is made of."""
    score = view.score.get("minutes")
    raw = view.score.get("raw_minutes")
    if not isinstance(score, int | float) or isinstance(score, bool) or score <= 0:
        return None
    factor = view.score.get("scaling_factor") or 1.0
    tip = f"{view.org} {view.system}: score {fmt(score)} min"
    if isinstance(raw, int | float) and factor != 1.0:
        tip += f" = olympic mean {fmt(raw)} min × {factor:g} scaling"
    return float(score), tip


def _on_top(points: list[Point]) -> list[Point]:
    """Kept runs first, then dropped and failed ones: drawn later, so a dropped run's
    ring is never hidden under a kept run at the same time."""
    order = {"kept": 0, "dropped": 1, "failed": 2}
    return sorted(points, key=lambda p: order.get(p.state.split()[0] if p.state else "", 0))


def energy_chart(benchmark: str, views: list[ResultSetView]) -> Chart | None:
    measured = [v for v in views if v.energy_runs]
    if not measured:
        return None
    chart = Chart(slug("energy", benchmark), "strip", f"{benchmark}: energy per run", "kWh")
    for index, view in enumerate(measured):
        chart.rows.append(f"{view.org} · {view.system}")
        points = [
            Point(r["energy_kwh"], index, _run_tip(view, r, f"{fmt(r['energy_kwh'])} kWh"))
            for r in view.runs
            if r.get("energy_kwh") is not None
        ]
        for point, run in zip(points, [r for r in view.runs if "energy_kwh" in r], strict=True):
            point.state = run["state"]
        chart.series.append(Series(f"{view.org} {view.system}", _on_top(points), index))
        if view.energy_kwh is not None:
            tip = f"{view.org} {view.system}: energy score {fmt(view.energy_kwh)} kWh"
            chart.marks.append((view.energy_kwh, index, tip))
    chart.caption = (
        "Energy of each run from its power logs; the bar is the energy score (the olympic "
        "mean of the counted runs, ranked by time to train, as the MLCommons summarizer)."
    )
    return chart


# -- convergence ----------------------------------------------------------------------


def _components(curves: list[RunCurve]) -> list[str | None]:
    """None for scalar metrics; the keys of dict values (Mask R-CNN BBOX, SEGM)."""
    keys: set[str] = set()
    for curve in curves:
        for point in curve.points:
            if isinstance(point.value, dict):
                keys.update(str(k) for k in point.value)
            elif isinstance(point.value, list):
                keys.update(str(i) for i in range(len(point.value)))
    return sorted(keys) or [None]  # type: ignore[return-value]


def _y(value: Any, component: str | None) -> float | None:
    if component is not None:
        if isinstance(value, dict):
            value = value.get(component)
        elif isinstance(value, list) and component.isdigit() and int(component) < len(value):
            value = value[int(component)]
        else:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _epochs_usable(curves: list[RunCurve]) -> bool:
    """Logged epochs (samples) place every evaluation: present, non-decreasing, moving."""
    moving = False
    for curve in curves:
        epochs = [p.epoch for p in curve.points if p.epoch is not None]
        if len(epochs) != len(curve.points):
            return False
        if any(b < a for a, b in itertools.pairwise(epochs)):
            return False
        moving = moving or len(set(epochs)) > 1
    return moving


def _targets(scoring: Any, benchmark: str, component: str | None) -> list[tuple[float, str]]:
    bench = scoring.benchmarks.get(benchmark) if scoring else None
    if bench is None:
        return []
    lines = []
    for kind, threshold in bench.target.items():
        value = threshold
        if isinstance(threshold, dict):
            value = threshold.get(component)
        elif isinstance(threshold, list):
            value = threshold[int(component)] if component and component.isdigit() else None
        sanity = (kind in ("min", "above") and value == 0) or (
            kind in ("max", "below") and value in (1, 100)
        )  # the open interval every accuracy lies in, not a target
        if isinstance(value, int | float) and not sanity:
            lines.append((float(value), f"target {TARGET_WORDS.get(kind, kind)} {fmt(value)}"))
    return lines


def _reference(view: ResultSetView, scoring: Any, curves: list[RunCurve]) -> Any:
    division = str(view.score.get("division") or "").lower()
    if scoring is None or not scoring.rcp or division != "closed" or view.drop is None:
        return None
    batches = {c.batch_size for c in curves}
    if len(batches) != 1 or None in batches:
        return None
    from ..results.rcp import reference_at

    bench = scoring.benchmarks.get(view.benchmark)
    if bench is None:
        return None
    return reference_at(
        scoring.rcp,
        view.benchmark,
        bench.drop,
        float(batches.pop() or 0),
        bench.runs,
        getattr(scoring, "rcp_method", "trimmed"),
    )


def curve_charts(data: ReportData, view: ResultSetView) -> list[Chart]:
    curves = [data.curves[r["path"]] for r in view.runs if r["path"] in data.curves]
    if not any(c.points for c in curves):
        return []
    by_epoch = _epochs_usable(curves)
    scoring = view.scoring
    bench = scoring.benchmarks.get(view.benchmark) if scoring else None
    unit = x_axis(bench, view.benchmark)[1]
    reference = _reference(view, scoring, curves) if by_epoch else None
    charts = []
    for component in _components(curves):
        name = component or getattr(bench, "metric", None) or "eval_accuracy"
        chart = Chart(
            slug("conv", *view.key, component or ""),
            "curve",
            f"{view.org} · {view.system}" + (f" · {component}" if component else ""),
            unit if by_epoch else "minutes since run_start",
            name,
        )
        for index, (run, curve) in enumerate(zip(view.runs, curves, strict=False)):
            chart.series.append(_curve_series(run, curve, component, by_epoch, unit, index))
        chart.context = view.benchmark
        chart.hlines = _targets(scoring, view.benchmark, component)
        if reference is not None:
            low, high = reference.mean - reference.stdev, reference.mean + reference.stdev
            chart.vbands.append((low, high, f"reference mean ± stdev: {fmt(reference.mean)}"))
            chart.vlines.append(
                (reference.minimum, f"minimum olympic mean {fmt(reference.minimum)} {unit}")
            )
        chart.caption = _curve_caption(view, by_epoch, reference, unit)
        charts.append(chart)
    return charts


def _curve_series(
    run: RunShown,
    curve: RunCurve,
    component: str | None,
    by_epoch: bool,
    unit: str,
    index: int,
) -> Series:
    points = []
    for p in curve.points:
        x = p.epoch if by_epoch else p.minutes
        y = _y(p.value, component)
        if x is None or y is None:
            continue
        where = f"{unit} {fmt(x)}" if by_epoch else f"{fmt(x)} min"
        points.append(Point(float(x), y, f"{where} · {fmt(y)}", line=p.line))
    converged = curve.converged_at is not None
    if points and converged:
        points[-1].state = "end"
    state = f"converged at {fmt(curve.converged_at)} {unit}" if converged else "not converged"
    tip = f"{run['file']} ({run['state']}, {state}) · {run['path']}"
    return Series(
        run["file"],
        points,
        index,
        line=True,
        dashed=not converged,
        tip=tip,
        tip_head=f"{run['file']} · ",
        tip_tail=f" · {run['path']}:",
        x_before=f"{unit} " if by_epoch else "",
        x_after="" if by_epoch else " min",
    )


def _curve_caption(view: ResultSetView, by_epoch: bool, reference: Any, unit: str) -> str:
    parts = []
    verdict = view.score.get("rcp_verdict")
    if verdict:
        parts.append(f"RCP {verdict}: {view.score.get('rcp_message', '')}")
    if not by_epoch:
        parts.append(
            f"these logs do not place evaluations in {unit} (epoch_num missing or constant): "
            "plotted against time"
        )
    elif reference is None and view.score.get("rcp_verdict"):
        parts.append("no reference band: no reference data at this batch size")
    return "; ".join(parts)


# -- problems ---------------------------------------------------------------------------


def problem_groups(data: ReportData) -> tuple[list[SeverityGroup], list[GlossaryEntry]]:
    """Problems and anomalies by severity, then code; a glossary entry per code shown."""
    from .. import catalog

    items: dict[str, dict[str, list[ProblemItem]]] = defaultdict(lambda: defaultdict(list))
    for p in data.problems:
        items[p["severity"]][p["rule"]].append(
            {"path": p["path"], "line": p["line"], "message": p["message"], "what": "problem"}
        )
    for a in data.anomalies:
        code = a.get("code") or ""
        info = _info(catalog, code)
        severity = str(info.severity) if info else "warning"
        if a.get("impact") == "info":  # a known habit (docs/audit.md): with the info group
            severity = "info"
        message = f"{a['kind']}: {a['message']}"
        entry: ProblemItem = {
            "path": a["path"],
            "line": a["line"],
            "message": message,
            "what": "anomaly",
        }
        items[severity][code].append(entry)
    groups: list[SeverityGroup] = []
    for severity in sorted(items, key=_severity_rank):
        codes: list[CodeGroup] = []
        for code in sorted(items[severity]):
            rows = items[severity][code]
            info = _info(catalog, code)
            codes.append(
                {
                    "code": code,
                    "name": info.name if info else "",
                    "items": rows,
                    "kinds": Counter(r["what"] for r in rows),
                }
            )
        total = sum(len(c["items"]) for c in codes)
        groups.append({"severity": severity, "codes": codes, "total": total})
    shown = sorted({str(c["code"]) for g in groups for c in g["codes"]})
    glossary: list[GlossaryEntry] = []
    for code in shown:
        info = _info(catalog, code)
        glossary.append(
            {
                "code": code,
                "name": info.name if info else "",
                "severity": str(info.severity) if info else "",
                "summary": info.summary if info else "(not in this build's catalog)",
                "rationale": info.rationale if info else "",
            }
        )
    return groups, glossary


def _severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def _info(catalog: Any, code: str) -> Any:
    try:
        return catalog.get(code)
    except KeyError:
        return None
