"""What a report shows, gathered from the library's public data functions.

A round folder is audited (``submission.audit.run_audit``), an org folder is checked
as an audit worker checks it (``audit_org``), any other folder is scored
(``results.compute_scores``). Every row keeps the library's columns, so columns that
later stages add (energy, new rounds' verdicts) reach the report unchanged.
Paths are shown relative to ``base``: the round folder, or the folder above the orgs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, MutableMapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from ..errors import UsageError
from ..problems import Context, Problem
from .curves import RunCurve, read_curves

if TYPE_CHECKING:  # the rows' types; the audit is imported where it runs
    from ..results.scores import ScoreRow
    from ..submission.audit import OrgRows, OrgSummary
    from ..submission.ranking import AnomalyRow


class ProblemShown(TypedDict):
    """A problem as the report shows it (``Problem.row(PROBLEM_ROW)``): its org, then
    its fields (problems.FIELDS)."""

    org: str
    path: str
    line: int
    column: int
    rule: str
    name: str
    severity: str
    message: str
    text: str


PROBLEM_ROW: tuple[str, ...] = tuple(ProblemShown.__annotations__)


class RunShown(TypedDict, total=False):
    """A run as the report holds it: an org's run as the audit checks it
    (submission.audit_rows.AuditRun, the same dict), or a result folder's as ``score``
    lists it (results.scores.ScoreRun, a copy) with its compliance as the audit spells
    it; then the power logs' energy and the page's marks (build.py). Which keys a row
    has depends on where it came from: none is required (a test holds the types to both
    rows' and the keys to what real pages hold)."""

    org: str
    system: str
    benchmark: str
    path: str
    submission_org: str | None
    division: str | None
    submission_status: str | None
    platform: str | None
    records: int
    parse_errors: int
    run_start_ms: float | None
    run_stop_ms: float | None
    minutes: float | None
    run_stop_status: str | None
    seed: str | None
    compliance: str  # pass or fail
    compliance_errors: int
    body_sha1: str
    energy_j: float | None
    avg_power_w: float | None
    eval_curve_sha1: str
    # ScoreRun's own
    converged: bool
    compliant: bool
    epochs_or_samples: float | None
    global_batch_size: int | None
    seeds: list[Any]
    note: str
    # Both: across rounds (results/columns.py)
    round: str | None
    published: str | None
    benchmark_model: str | None
    republished: bool
    # Added by the report: the power logs' method, the page's file name, run_stop's
    # line, kept/dropped/failed, counted in the mean, the energy in kWh (or in Wh, as a
    # later stage may add it).
    energy_method: str
    file: str
    stop_line: int
    state: str
    counted: bool
    energy_kwh: float
    energy_wh: float


class ReportError(UsageError):
    """Usage or input error: no such folder, a round nothing tells."""


@dataclass
class ReportData:
    paths: list[str]
    base: str  # shown paths are relative to this folder
    rulesets: list[str] = field(default_factory=list)
    orgs: list[OrgSummary] = field(default_factory=list)
    runs: list[RunShown] = field(default_factory=list)
    scores: list[ScoreRow] = field(default_factory=list)  # results.Score fields
    # MLPerf HPC weak-scaling results (results.weak.WeakScore fields; docs/hpc.md)
    weak: list[ScoreRow] = field(default_factory=list)
    anomalies: list[AnomalyRow] = field(default_factory=list)
    problems: list[ProblemShown] = field(default_factory=list)
    curves: MutableMapping[str, RunCurve] = field(default_factory=dict)  # by shown path
    # Folders of a results repository root that name no round of this build (not read).
    skipped: list[str] = field(default_factory=list)

    def absolute(self, shown: str) -> str:
        return os.path.join(self.base, shown)


def kind_of(path: Path) -> str:
    """'round' (folders of orgs: a round folder whose submissions nest, v0.5, too, as
    ``audit`` reads it), 'org' (holds results/) or 'results' (anything else)."""
    if (path / "results").is_dir():
        return "org"
    from ..submission.audit import org_folders

    return "round" if org_folders(path) or org_folders(path, _nested_round(path)) else "results"


def _nested_round(path: Path) -> str | None:
    """The round a folder's name (or a folder above it) names, when its submissions nest
    (the registry's ``orgs_at_top`` not in force: v0.5); None otherwise."""
    from ..rounds import registry

    for folder in (path, *path.parents):
        rnd = registry().find(folder.name)
        if rnd is not None:
            return None if rnd.applies("orgs_at_top") else rnd.version
    return None


def _anchor(path: Path, kind: str) -> Path:
    """The folder shown paths start below: a round, or the folder above an org."""
    if kind == "round":
        return path
    if kind == "org":
        return path.parent
    parts = path.parts
    if "results" in parts:
        index = len(parts) - 1 - parts[::-1].index("results")
        if index >= 2:
            return Path(*parts[: index - 1])
    return path.parent


def collect(paths: list[str], ruleset: str = "auto", jobs: int | None = None) -> ReportData:
    folders = [Path(p).resolve() for p in paths]
    for folder in folders:
        if not folder.is_dir():
            raise ReportError(f"{folder}: not a folder")
    folders, skipped, linked = _repositories(folders)
    kinds = [kind_of(f) for f in folders]
    anchors = [_anchor(f, k) for f, k in zip(folders, kinds, strict=True)]
    base = anchors[0] if len(set(anchors)) == 1 else Path(os.path.commonpath(anchors))
    data = ReportData(list(paths), str(base), skipped=[_shown(str(base))(s) for s in skipped])
    rounds = [f for f, k in zip(folders, kinds, strict=True) if k == "round"]
    orgs = [f for f, k in zip(folders, kinds, strict=True) if k == "org"]
    others = [f for f, k in zip(folders, kinds, strict=True) if k == "results"]
    if rounds or orgs:
        _add_audited(data, rounds, orgs, ruleset, jobs, linked)
    if others:
        _add_results(data, others, ruleset)
    _finish(data, jobs)
    return data


def _repositories(folders: list[Path]) -> tuple[list[Path], list[str], list[Problem]]:
    """A results repository root (a folder of round folders) read as its rounds, as
    ``audit`` reads it (``submission.audit.expand_repositories``): each round audited,
    not merely scored. Also its folders that name no round (said on the page) and its
    linked round folders (never followed: MLA021)."""
    from ..submission.audit import expand_repositories, linked_rounds

    out: list[Path] = []
    skipped: list[str] = []
    linked: list[Problem] = []
    for folder in folders:
        if kind_of(folder) != "results":
            out.append(folder)
            continue
        rounds, names = expand_repositories([folder])
        out.extend(rounds)
        skipped.extend(names)
        if rounds != [folder]:
            linked.extend(linked_rounds([folder]))
    return out, skipped, linked


def _ruleset_arg(ruleset: str) -> str | None:
    return None if ruleset in ("", "auto") else ruleset


def _folder_ruleset(folder: Path, ruleset: str) -> str:
    """The flag's round, else the one a folder in the path names, usable in this build
    (mllog_check.rounds); ReportError without."""
    from ..submission.audit import AuditError, round_of_folder

    try:
        return round_of_folder(folder, _ruleset_arg(ruleset))
    except AuditError as err:
        raise ReportError(str(err)) from None


def _add_audited(
    data: ReportData,
    rounds: list[Path],
    orgs: list[Path],
    ruleset: str,
    jobs: int | None,
    linked: Sequence[Problem] = (),
) -> None:
    """Every org as an audit worker checks it (``audit_org``), and every log's curve, in
    one pool: the orgs' checks first (largest first), the logs' evaluations after."""
    from ..submission.audit import finish, not_audited, org_folders, org_label
    from ..submission.preview import preview_not_available
    from ..submission.ranking import anomaly_row

    tasks: list[tuple[str, str, str | None]] = []  # org folder, round, its name
    base = Path(data.base)
    # As run_audit: a round's folders that are not orgs are said (MLA021), and a
    # preview system a round later is found across the rounds read (MLA050).
    anomalies: list[Problem] = list(linked)
    for root in rounds:
        chosen = _folder_ruleset(root, ruleset)
        below = org_folders(root, chosen)
        tasks.extend((str(org), chosen, org_label(org, root, base)) for org in below)
        anomalies.extend(not_audited(root, base, below))
    tasks.extend((str(org), _folder_ruleset(org, ruleset), None) for org in orgs)
    results, curves = run_pool(tasks, data.base, jobs)
    runs, copies = [], []
    for rows in sorted(results, key=lambda r: r.org):
        data.orgs.append(rows.summary)
        data.runs.extend(cast(list[RunShown], rows.runs))  # the same dicts, keys added
        for score in rows.scores:
            (data.weak if score.get("scaling") == "weak" else data.scores).append(score)
        data.problems.extend(problem_shown(p) for p in rows.problems)
        anomalies.extend(rows.anomalies)
        runs.extend(rows.runs)
        copies.extend(rows.copies)
    data.rulesets.extend(chosen for _, chosen, _ in tasks)
    anomalies.extend(preview_not_available([*data.scores, *data.weak]))
    bases = dict.fromkeys((r.org for r in results), data.base)  # as the audit's (one base)
    found = finish(anomalies, runs, copies, bases)
    data.anomalies.extend(anomaly_row(a) for a in found)
    data.curves.update(curves)


def _size(path: str) -> int:
    """Bytes of an org's result files below no link (the biggest org starts first),
    walked without recursion: Path.glob("**") raised on a results/ 1,100 folders deep."""
    import stat

    from ..inputs import walk_tree

    results = Path(path) / "results"
    if results.is_symlink():
        return 0
    total = 0
    for folder, _dirs, files in walk_tree(results, lambda err: None):
        for name in files:
            if not name.startswith("result_"):
                continue
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def run_pool(
    tasks: list[tuple[str, str, str | None]], base: str, jobs: int | None
) -> tuple[list[OrgRows], dict[str, RunCurve]]:
    """(org folder, ruleset, its name or None) -> the audit's rows per org, and each
    run's curve by shown path: the one its worker took from the records it parsed for
    the checks, as the audit's record has it (no log is read twice)."""
    from ..submission.audit import audit_org

    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    if workers == 1:
        results = [audit_org(org, chosen, base, name) for org, chosen, name in tasks]
    else:
        _warm({chosen for _, chosen, _ in tasks})
        ordered = sorted(tasks, key=lambda t: -_size(t[0]))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            audits = [
                pool.submit(audit_org, org, chosen, base, name) for org, chosen, name in ordered
            ]
            _import_renderer()  # while the workers check
            results = [f.result() for f in audits]
    return results, _unpacked(results, base)


def _unpacked(results: list[OrgRows], base: str) -> dict[str, RunCurve]:
    """The workers' curves of the runs they made rows for (a curve of another benchmark
    than its run's is none: ``_finish`` reads the log, as record._gathered)."""
    from ..results.curves import from_fields_json
    from ..submission.curvespill import unpack

    curves = {}
    for rows in results:
        benchmarks = {run["path"]: run["benchmark"] for run in rows.runs}
        for path, bench, text in unpack(rows.curves):
            if benchmarks.get(path) == bench:
                curves[path] = from_fields_json(os.path.join(base, path), text)
    return curves


def _warm(rulesets: set[str]) -> None:
    """The rounds' data loaded before forking, as the audit does: the workers inherit it."""
    from ..submission.parallel import prewarm

    for chosen in sorted(rulesets):
        prewarm(chosen)


def _import_renderer() -> None:
    with contextlib.suppress(ImportError):  # render() says how to install it
        import jinja2  # noqa: F401


def _add_results(data: ReportData, folders: list[Path], ruleset: str) -> None:
    from ..results import compute_scores
    from ..results.scores import as_row

    report = compute_scores([str(f) for f in folders], ruleset=ruleset)
    rel = _shown(data.base)
    for score in report.scores:
        row = as_row(score)
        row["folder"] = rel(row["folder"])
        data.scores.append(row)
        data.rulesets.append(score.ruleset)
    for weak in report.weak:
        row = as_row(weak)
        row["folder"] = rel(row["folder"])
        data.weak.append(row)
        data.rulesets.append(weak.ruleset)
    from ..results.scores import run_row

    for run in report.runs:
        shown = cast(RunShown, dict(run_row(run)))  # a copy, keys added
        shown["path"] = rel(shown["path"])
        shown["compliance"] = "pass" if run.compliant else "fail"
        data.runs.append(shown)
    for problem in report.problems:
        data.problems.append(_row(problem, "", rel(problem.path)))


def problem_shown(problem: Problem) -> ProblemShown:
    """A problem's row, with ``PROBLEM_ROW`` in order."""
    return cast(ProblemShown, problem.row(PROBLEM_ROW))


def _row(problem: Problem, org: str, shown: str) -> ProblemShown:
    return problem_shown(problem.replace(path=shown, context=Context(org)))


def _shown(base: str) -> Callable[[str], str]:
    def rel(path: str) -> str:
        full = os.path.abspath(path)
        inside = full == base or full.startswith(base.rstrip("/") + "/")
        return os.path.relpath(full, base) if inside else path

    return rel


def _finish(data: ReportData, jobs: int | None) -> None:
    data.rulesets = sorted(set(data.rulesets))
    data.orgs.sort(key=lambda o: o["org"])
    data.runs.sort(key=lambda r: r["path"])
    data.scores.sort(key=lambda s: (s["org"], s["system"], s["benchmark"]))
    data.weak.sort(key=lambda s: (s["org"], s["system"], s["benchmark"]))
    data.anomalies.sort(key=lambda a: (a["path"], a["line"], a["kind"]))
    data.problems.sort(key=lambda p: (p["path"], p["line"], p["column"], p["rule"]))
    rulesets = {
        (s["org"], s["system"], s["benchmark"]): s.get("ruleset") for s in data.scores + data.weak
    }
    only = data.rulesets[0] if len(data.rulesets) == 1 else ""
    items = [
        (
            data.absolute(r["path"]),
            r["benchmark"],
            str(rulesets.get((r["org"], r["system"], r["benchmark"])) or only),
        )
        for r in data.runs
        if r["path"] not in data.curves  # not read in the pool (result folders)
    ]
    curves = read_curves(items, jobs)
    for run in data.runs:
        if run["path"] not in data.curves:
            data.curves[run["path"]] = curves[data.absolute(run["path"])]
    _add_energy(data)


def _add_energy(data: ReportData) -> None:
    """Energy per run from the power logs beside the results (mllog_check.power), for
    rows that do not carry it already; the power checks' problems come along when no
    stage reported them."""
    from ..power import RunTiming, check_power, has_power

    by_folder: dict[str, list[RunShown]] = {}
    for run in data.runs:
        by_folder.setdefault(os.path.dirname(run["path"]), []).append(run)
    reported = {p["path"] for p in data.problems if str(p["rule"]).startswith("MLE")}
    rel = _shown(data.base)
    # New rows, not the rows changed: an audit's record shares the audit's rows, which
    # its tables are being written from meanwhile (record.from_audit).
    with_energy: dict[int, RunShown] = {}
    for folder, runs in sorted(by_folder.items()):
        if any(r.get("energy_j") is not None for r in runs):
            continue
        full = data.absolute(folder)
        if not has_power(full):
            continue
        timings = [
            RunTiming(data.absolute(r["path"]), c.start_ms, c.stop_ms)
            for r in runs
            for c in [data.curves[r["path"]]]
        ]
        report = check_power(timings, full)
        for run in runs:
            energy = report.energies.get(data.absolute(run["path"]))
            if energy is not None and energy.joules is not None:
                with_energy[id(run)] = {
                    **run,
                    "energy_j": energy.joules,
                    "energy_method": energy.method,
                }
        for problem in report.problems:
            shown = rel(problem.path)
            if shown not in reported:
                org = runs[0].get("org", "")
                data.problems.append(_row(problem, org, shown))
    if with_energy:
        data.runs = [with_energy.get(id(run), run) for run in data.runs]
    data.problems.sort(key=lambda p: (p["path"], p["line"], p["column"], p["rule"]))
