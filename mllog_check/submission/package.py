"""The package checker: one submitter's folder, every check, nothing written.

``check_package(ORG_DIR)`` chooses the round once and runs, in one pass with that
``Round``, layout, system descriptions (schema per round), every log (parse +
compliance), scores/RCP/seeds (the results stage) and cross-file consistency. Every
stage ships with the package: nothing is guarded by an import; a stage raising on one
log is MLP031. The same pass collects the audit's small rows (runs, scores,
anomalies), so an audit worker is a call of this function.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import catalog, rules
from ..parsing import parse_file
from ..problems import Context, Problem, Severity
from ..records import ParseResult
from ..results import codes as mlr
from ..results.counting import tolerated as dropped_run
from ..results.curves import curve_of, fields_json
from ..results.runs import Run
from ..results.scores import Score, score_set
from ..results.tree import ResultSet, SystemDescription
from ..results.weak import WeakScore, score_weak_set
from ..rounds import Choice, Round, RoundError, Setting, choose, parse_round
from ..rules import UnknownRuleset
from ..rules.schema import show
from ..selection import Selection
from . import anomalies, codes, parallel, ranking
from .audit_rows import AuditRows, AuditRun, AuditScore, CopyRow, score_row
from .consistency import Declared, check_result_set, same_org
from .crashes import description_crash, layout_crash, result_set_crash
from .layout import OrgLayout, check_layout, require_org
from .repository import REPOSITORY_CODES, check_repository, repository_verdict
from .sysdesc import keyed_lines_problems, load, position, validate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..resultcache import ResultCache

# The audit's runs table (runs.csv, runs.parquet): one row per log as the package reads
# it (not `score`'s runs table, results.scores.SCORE_RUN_COLUMNS); its columns are the
# keys of the row type, in order.
AUDIT_RUN_COLUMNS: tuple[str, ...] = tuple(AuditRun.__annotations__)
# The audit's anomaly table: the keys of its row type (ranking.AnomalyRow), in order.
ANOMALY_COLUMNS = ranking.ANOMALY_COLUMNS


def anomaly_order(p: Problem) -> tuple[str, str, str, str, int, str, str]:
    """The anomaly table's order: by place in the round (org, system, benchmark), then path."""
    where = p.context
    return (where.org, where.system, where.benchmark, p.path, p.line, p.name, p.message)


@dataclass
class PackageReport:
    root: str
    org: str
    ruleset: str
    problems: list[Problem] = field(default_factory=list)
    runs: list[AuditRun] = field(default_factory=list)  # the audit's (audit_rows.py)
    scores: list[AuditScore] = field(default_factory=list)
    anomalies: list[Problem] = field(default_factory=list)  # placed: Problem.context
    # Where the round came from (flag, config, folder, content, date, newest) and why.
    ruleset_source: str = ""
    ruleset_reason: str = ""
    # Hashes of result files the checks skip (nested folders), for duplicate detection.
    copies: list[CopyRow] = field(default_factory=list)
    strict: bool = False
    # The verdict the round's official package checker would give (errors only of what
    # it rejects), and the problems beyond it (warnings; errors under --strict).
    official_passed: bool = True
    # repo_checker's verdict, the verify script's other official tool; None before the
    # round checks the repository (docs/package.md, "Repository checks").
    repo_passed: bool | None = None
    beyond: int = 0
    # Errors of runs the score drops, downgraded to warnings (``tolerate``): the official
    # checker accepts them too, so they count neither as beyond it nor under --strict.
    tolerated: set[Problem] = field(default_factory=set)
    # What no check decides in this round, and why (v0.5, HPC v0.7: no official
    # compliance rules or package checker); '' when every stage ran.
    not_checked: str = ""
    # No result log of a benchmark of the round below results/: nothing was checked.
    empty: bool = False
    # The audit's: each log's evaluation curve for the report's record, from the records
    # parsed for the checks (no second read): path -> (benchmark, the curve as the record
    # writes it, results.curves.fields_json). Text, not objects: a cached re-audit reads
    # 430,000 points of a record-sized tree as 20,000 strings (docs/audit.md).
    curves: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """No error, and something checked. What could not be checked is never a pass:
        a round without the data of every stage raises RoundUnavailable, a stage that
        raised on a log is an MLP031 error, an org without result logs is ``empty``."""
        return not self.empty and not any(p.is_error for p in self.problems)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for p in self.problems:
            out[str(p.severity)] += 1
        return out


def _compliance(result: ParseResult, rnd: Round, root: str) -> tuple[str, list[Problem]]:
    """One log's compliance verdict ("pass" or "fail") and its problems; "error" and
    MLP031 when the stage raised on it: one bad log never stops the package."""
    if not rnd.has("rules"):
        # The round has no official compliance rules (v0.5, HPC v0.7): nothing to check
        # against, never a failure; the score says how runs were counted (MLR067).
        return "", []
    try:
        verdict = rules.check_log(result, rnd)
    except UnknownRuleset as err:
        # Never a pass for what was not checked: a usage error (exit 2).
        raise RoundUnavailable(f"{err}: {root} not checked") from err
    except Exception as err:  # a bug on hostile input: MLP031 on this log
        msg = f"compliance stage failed: {type(err).__name__}: {err}"
        return "error", [codes.STAGE_FAILED.problem(result.path, msg)]
    return ("pass" if verdict.passed else "fail"), list(verdict.problems)


def _scores(
    rs: ResultSet,
    results: list[ParseResult],
    desc: SystemDescription | None,
    rnd: Round,
    verdicts: dict[str, bool],
) -> tuple[list[Score | WeakScore], list[Problem], list[Run]]:
    """Scores, problems and the results stage's runs of one result set, from the logs
    already parsed and the description already read (no second parse or read); MLP031
    when the stage raised on it (see ``_compliance``)."""
    if not rs.files:
        return [], [], []
    system = desc or SystemDescription()  # no systems/<system>.json: no values
    scores: list[Score | WeakScore]
    try:
        if rs.scaling == "weak":  # MLPerf HPC: the weak-scaling tuple (docs/hpc.md)
            weak, runs, problems = score_weak_set(rs, results, rnd, system, verdicts)
            scores = [weak]
        else:
            score, runs, problems = score_set(rs, results, rnd, system, verdicts)
            scores = [score]
    except Exception as err:  # a bug on hostile input: MLP031 on this result set
        msg = f"scores stage failed: {type(err).__name__}: {err}"
        return [], [codes.STAGE_FAILED.problem(str(rs.folder), msg)], []
    # The results stage re-reads system descriptions leniently; their errors are ours.
    kept = [p for p in problems if p.rule != mlr.SYSTEM_UNREADABLE.code]
    # The layout check (MLP003) already counts this folder's result files.
    kept = [p for p in kept if p.rule != mlr.RUN_COUNT.code]
    return scores, kept, list(runs)


class RoundUnavailable(RoundError):
    """The round chosen lacks data a stage needs in this build: the package cannot be checked."""


# Data each stage of the package check needs from the round (registry file kinds).
STAGE_DATA = ("rules", "scoring", "rcp", "system_description")


def check_package(
    root: str | Path,
    ruleset: str = "auto",
    *,
    audit: bool = False,
    strict: bool = False,
    setting: Setting | None = None,
    jobs: int = 1,
) -> PackageReport:
    """Check one org folder. Raises NotASubmission / RoundError for usage errors.

    ``ruleset`` is a round in any spelling, or "auto": the project ``setting``, else a
    round folder enclosing the org, else the content of its first result log
    (``mllog_check.rounds.choose``). RoundUnavailable when the round's rules, scoring,
    RCP or system-description data are not in this build (never a pass).
    Errors are what the round's official package checker rejects; checks beyond it are
    warnings, errors with ``strict`` (``report.official_passed`` keeps the official
    verdict either way). ``jobs`` > 1: result sets are checked by up to that many worker
    processes when the org is large enough to gain (``parallel.py``); same report.
    """
    root = Path(root)
    require_org(root)  # a missing folder or a round folder: say so, not its round
    choice = choose_round(root, ruleset, setting)
    rnd = choice.round
    missing = [why for kind in STAGE_DATA if (why := rnd.missing(kind))]
    if missing:
        raise RoundUnavailable(
            f"{'; '.join(missing)}: {root} cannot be checked for it (round from "
            f"{choice.source}: {choice.reason})"
        )
    ruleset = rnd.version
    layout = check_layout(root, rnd)
    report = PackageReport(str(root), layout.org, ruleset, strict=strict)
    report.ruleset_source, report.ruleset_reason = choice.source, choice.reason
    if not rnd.has("rules"):
        report.not_checked = (
            f"compliance: round {rnd.version} has no official compliance rules or package "
            "checker; runs are counted by convergence and a clean parse (MLR067)"
        )
    report.problems.extend(layout.problems)
    report.problems.extend(check_repository(root, rnd))  # the verify script's repo_checker
    report.problems.extend(layout_crash(root, rnd))
    descs = _system_descriptions(layout, rnd, report)
    report.problems.extend(description_crash(report.problems, rnd))
    signatures: dict[tuple[Any, ...], list[tuple[str, str]]] = {}
    # Skipped result sets: as by the official checker (MLP005 says so).
    known = [rs for rs in layout.result_sets if rs.known]
    for part, found in sets_checked(str(root), layout, known, descs, rnd, audit, jobs):
        _merge(report, part)
        for signature, where in found.items():
            signatures.setdefault(signature, []).extend(where)
    report.problems.extend(runs_filed_twice(signatures))
    report.empty = not any(rs.files for rs in layout.result_sets if rs.known)
    if audit:
        report.anomalies.extend(_problem_anomalies(layout, report.problems))
        report.copies.extend(_copies(layout))
    report.official_passed = not any(
        is_official_error(p) and p.rule not in REPOSITORY_CODES for p in report.problems
    )
    report.repo_passed = repository_verdict(rnd, report.problems)
    beyond = [p for p in report.problems if is_beyond_official(p, report.tolerated)]
    report.beyond = len(set(beyond))
    if strict:
        report.problems = promote(report.problems, report.tolerated)
    report.problems = sorted(set(report.problems))
    report.anomalies.sort(key=anomaly_order)
    return report


def selected(report: PackageReport, shown: Selection) -> PackageReport:
    """The report with the problems and anomalies ``shown`` (``--select``, ``--ignore``,
    ``--preview``): what is beyond the official checker is counted again from what is
    left; the official verdict (``official_passed``, ``repo_passed``) is the official
    tools' and stays as it was, and so does every official error (selection.py)."""
    from dataclasses import replace

    problems = shown.apply(report.problems)
    beyond = {
        p
        for p in problems
        if p not in report.tolerated
        and p.severity is not Severity.INFO
        and catalog.get(p.rule).beyond
    }
    return replace(
        report, problems=problems, anomalies=shown.apply(report.anomalies), beyond=len(beyond)
    )


def is_official_error(problem: Problem) -> bool:
    """An error the round's official tools would report too (every error but those kept
    beyond them)."""
    return problem.is_error and problem.rule not in codes.KEPT_BEYOND_OFFICIAL


def is_beyond_official(problem: Problem, tolerated: Collection[Problem] = ()) -> bool:
    """A warning for a check the round's official package checker does not make: its
    rule is marked ``beyond`` in the rule table (the package's advice, the compliance
    engine's MLC1xx); not the ``tolerated`` problems of runs dropped under olympic
    scoring, which the official checker accepts too.
    """
    if problem.severity is not Severity.WARNING or problem in tolerated:
        return False
    return catalog.get(problem.rule).beyond


def promote(problems: list[Problem], tolerated: Collection[Problem] = ()) -> list[Problem]:
    """--strict: every check beyond the official checker fails the package."""
    return [
        p.replace(severity=Severity.ERROR) if is_beyond_official(p, tolerated) else p
        for p in problems
    ]


def choose_round(root: Path, ruleset: str = "auto", setting: Setting | None = None) -> Choice:
    """The round of an org folder: flag, project setting, round folder, first log's content."""
    from ..rounds import from_path, is_auto

    if is_auto(ruleset) and setting is None and from_path(root, is_folder=True) is None:
        logs = sorted(root.glob("results/*/*/result_*.txt"))
        logs += sorted(root.glob("results/*/*/*/result_*.txt"))  # HPC: <strong|weak> level
        first = next(iter(logs), None)
        if first is not None:
            return choose(first, parse_file(first).records, "auto", is_folder=False)
    return choose(root.resolve(), (), ruleset, setting, is_folder=True)


def _system_descriptions(
    layout: OrgLayout, rnd: Round, report: PackageReport
) -> dict[str, SystemDescription]:
    descs = {}
    for system, path in sorted(layout.systems.items()):
        desc = load(path, root=layout.root)
        report.problems.extend(desc.problems)
        if desc.form == "keyed-lines":  # v0.6-era `key: {json}` lines, not the template
            report.problems.extend(keyed_lines_problems(desc, rnd))
        elif rnd.has("system_description"):  # HPC rounds have no schema of their own
            report.problems.extend(validate(desc, rnd.folder))
        submitter = desc.get("submitter")
        if submitter is not None and not same_org(submitter, layout.org):
            msg = f"submitter {submitter!r} is not the org folder {layout.org!r}"
            line, col = position(desc.text, "submitter")
            report.problems.append(codes.ORG_MISMATCH.problem(str(path), msg, line, col))
        descs[system] = desc
    return descs


def _check_result_set(
    layout: OrgLayout,
    rs: ResultSet,
    desc: SystemDescription | None,
    rnd: Round,
    report: PackageReport,
    audit: bool,
    signatures: dict[tuple[Any, ...], list[tuple[str, str]]] | None = None,
) -> None:
    declared: list[Declared] = []
    compliance: list[Problem] = []
    results = []  # one result set's records, released when it is scored
    verdicts: dict[str, bool] = {}  # handed to the score stage: each log is checked once
    seeded: list[tuple[str, bool]] = []  # (path, logs a seed) for the official seed rule
    unreadable: dict[str, Any] = {}  # path -> a seed value the official check cannot read
    rows_of_audit = AuditRows(layout.org, rs, rnd) if audit else None
    for path in rs.files:
        result = parse_file(path)
        results.append(result)
        seeds = [r.value for r in result.records if r.key == "seed"]
        seeded.append((str(path), any(s is not None for s in seeds)))  # null: no seed
        bad_seed = next((s for s in seeds if not _int_readable(s)), _NONE)
        if bad_seed is not _NONE:
            unreadable[str(path)] = bad_seed
        report.problems.extend(result.problems)
        verdict, found = (
            _compliance(result, rnd, report.root) if not result.input_error else ("", [])
        )
        if verdict in ("pass", "fail"):
            verdicts[result.path] = verdict == "pass"
        parsed = set(result.problems)  # check_log repeats the parser's problems
        found = [p for p in found if p not in parsed]
        compliance.extend(found)
        log = Declared.from_records(str(path), result.records)
        declared.append(log)
        signature = run_signature(result.records)
        if signatures is not None and signature is not None:
            signatures.setdefault(signature, []).append((rs.system, str(path)))
        if rows_of_audit is not None:
            rows_of_audit.add(result, log, verdict, found)
            if not result.input_error:  # unreadable: the report reads it, as from logs
                curve = curve_of(result.path, result.records, rs.benchmark, rnd.version)
                report.curves[result.path] = (rs.benchmark, fields_json(curve))
    report.problems.extend(check_result_set(layout.org, rs.benchmark, declared, desc))
    report.problems.extend(result_set_crash(rs, results, desc, rnd, compliance))
    scores, found, runs = _scores(rs, results, desc, rnd, verdicts)
    unseeded = seed_presence(rnd, desc, seeded, unreadable)
    flagged = {p.path for p in unseeded}
    report.problems.extend(unseeded)
    # MLP040 says it for the runs the official seed check fails (the results stage's
    # seed-missing says it again).
    found = [p for p in found if not (p.path in flagged and _seed_missing(p))]
    # One file, one answer: a run the score drops (not compliant, or not timed because
    # it has no run_stop) is what the official checker accepts under olympic scoring.
    per_run = compliance + [p for p in found if _untimed(p)]
    report.problems.extend(p for p in found if not _untimed(p))
    valid = bool(scores) and all(score.valid is True for score in scores)
    if rs.scaling == "weak":
        # The official checker accepts one non-compliant file per folder, weak ones too
        # ("accepting this under olympic scoring"), whatever M is.
        valid = valid and len({p.path for p in per_run if p.is_error}) <= 1
    if valid:
        per_run, tolerated = tolerate(per_run)
        report.tolerated.update(tolerated)
    report.problems.extend(per_run)
    report.scores.extend(score_row(layout.org, rs, score) for score in scores)
    if rows_of_audit is not None:  # the audit's rows and anomalies (submission/audit_rows.py)
        rows_of_audit.finish(runs, report.scores[-1] if scores else None, rnd)
        report.runs.extend(rows_of_audit.runs)
        report.anomalies.extend(rows_of_audit.anomalies)


Signatures = dict[tuple[Any, ...], list[tuple[str, str]]]


def sets_checked(
    root: str,
    layout: OrgLayout,
    sets: list[ResultSet],
    descs: Mapping[str, SystemDescription],
    rnd: Round,
    audit: bool,
    jobs: int = 1,
) -> list[tuple[PackageReport, Signatures]]:
    """Each result set's part of the report and its run signatures, in ``sets``' order;
    in up to ``jobs`` worker processes when the logs are large enough to gain
    (parallel.py): the parts are the same either way."""
    tasks = [(root, layout, rs, descs.get(rs.system), rnd, audit) for rs in sets]
    weights = [parallel.tree_bytes(rs.folder) for rs in sets]
    workers = parallel.workers_for(jobs, weights) if jobs > 1 else 1
    if workers > 1:
        parallel.prewarm(rnd.version, audit)  # forked workers inherit the loaded rules
    return parallel.ordered_map(_set_part, tasks, weights, workers)


def _set_part(
    root: str,
    layout: OrgLayout,
    rs: ResultSet,
    desc: SystemDescription | None,
    rnd: Round,
    audit: bool,
) -> tuple[PackageReport, Signatures]:
    part = PackageReport(root, layout.org, rnd.version)
    signatures: Signatures = {}
    _check_result_set(layout, rs, desc, rnd, part, audit, signatures)
    return part, signatures


def _merge(report: PackageReport, part: PackageReport) -> None:
    """Add one result set's part to the org's report, as if checked in it."""
    report.problems.extend(part.problems)
    report.runs.extend(part.runs)
    report.scores.extend(part.scores)
    report.anomalies.extend(part.anomalies)
    report.curves.update(part.curves)
    report.tolerated.update(part.tolerated)


def run_signature(records: Iterable[Any]) -> tuple[Any, ...] | None:
    """What makes two logs one run: run_start's and run_stop's times and the eval_accuracy
    values in order (a copy edited elsewhere keeps them); None for an untimed log."""
    start = stop = None
    evals = []
    for rec in records:
        if rec.key == "run_start" and start is None:
            start = rec.timestamp_ms
        elif rec.key == "run_stop" and stop is None:
            stop = rec.timestamp_ms
        elif rec.key == "eval_accuracy":
            evals.append(repr(rec.value))
    if start is None or stop is None:
        return None
    return (start, stop, tuple(evals))


def runs_filed_twice(signatures: dict[tuple[Any, ...], list[tuple[str, str]]]) -> list[Problem]:
    """MLP025 on each log whose run is already filed under another system folder (within
    one result set, the results stage's MLR042 says it)."""
    problems = []
    for found in signatures.values():
        first_system, first_path = found[0]
        for system, path in found[1:]:
            if system == first_system:
                continue
            message = (
                f"same run_start, run_stop and eval_accuracy values as {first_path} "
                f"(system {first_system}): one run filed under two systems"
            )
            problems.append(codes.RUN_FILED_TWICE.problem(path, message))
    return problems


def _seed_missing(problem: Problem) -> bool:
    return problem.rule == mlr.SEED_MISSING.code


def _untimed(problem: Problem) -> bool:
    return problem.rule == mlr.RUN_INCOMPLETE.code


def seed_presence(
    rnd: Round | str,
    desc: SystemDescription | None,
    seeded: list[tuple[str, bool]],
    unreadable: Mapping[str, Any] | None = None,
) -> list[Problem]:
    """MLP040 where the round's official seed check fails a run for logging no seed (a
    null seed is none), or a seed it cannot read as an integer (``unreadable``: path ->
    value; its ``int(value)`` raises and it reports the file).

    The registry's policies say which rounds check (``seeds_checked``: from v1.0, a run
    without a seed fails only after one with a seed, in the order the official checker
    sorts the file names) and from which every closed run must log one
    (``seeds_always``: v5.0, mlcommons/logging#384). ``rnd``: the package's Round, or a
    round in any spelling."""
    if desc is None or desc.get("division") != "closed":  # the official test, verbatim
        return []
    if isinstance(rnd, str):
        rnd = parse_round(rnd)
    if not rnd.applies("seeds_checked"):
        return []
    if rnd.applies("seeds_always"):
        bad = [path for path, has in seeded if not has]
        why = "logs no seed; from v5.0 every closed run must log one"
        if rnd.is_hpc:
            why = "logs no seed; every closed MLPerf HPC run must (the official HPC checker)"
    else:
        bad, seen = [], False
        for path, has in sorted(seeded):
            seen = seen or has
            if seen and not has:
                bad.append(path)
        why = "logs no seed while a run before it (in file-name order) does"
    unreadable = unreadable or {}
    found = [codes.SEED_NOT_LOGGED.problem(path, why) for path in bad if path not in unreadable]
    for path, value in sorted(unreadable.items()):
        why = f"logs seed {show(value)}, which the official seed check cannot read as an integer"
        found.append(codes.SEED_NOT_LOGGED.problem(path, why))
    return sorted(found)


_NONE = object()


def _int_readable(value: Any) -> bool:
    """Whether Python's int() reads a logged seed, as the official seed check does."""
    try:
        int(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _copies(layout: OrgLayout) -> list[CopyRow]:
    out: list[CopyRow] = []
    for rs, path in layout.nested:
        records = parse_file(path).records
        hashed = anomalies.body_hash(records)
        out.append(
            {
                "org": layout.org,
                "system": rs.system,
                "benchmark": rs.benchmark,
                "path": str(path),
                "records": len(records),
                "body_sha1": hashed,
            }
        )
    return out


# Said after a tolerated problem's message (for a reader: no logic reads it).


def tolerate(problems: list[Problem]) -> tuple[list[Problem], set[Problem]]:
    """Compliance errors of runs the score drops: warnings, as the rules allow; the
    problems, and the set of those downgraded (``PackageReport.tolerated``).

    Rules (olympic mean): one non-converged or non-compliant run (four for unet3d) may
    count as the dropped slowest; the results stage said this result set stays valid.
    """
    out, tolerated = [], set()
    for p in problems:
        if p.is_error:
            p = dropped_run(p)
            tolerated.add(p)
        out.append(p)
    return out, tolerated


def _problem_anomalies(layout: OrgLayout, problems: list[Problem]) -> list[Problem]:
    """Anomalies the checks already found: strays, org mismatches, failing results."""
    where = _locator(layout)
    out = []
    failing: dict[str, list[Problem]] = {}
    for p in problems:
        kind = catalog.audited_as(p.rule)
        if kind is not None:
            line = 0 if p.rule == codes.STRAY.code else p.line
            context = Context(layout.org, *where(p.path))
            out.append(kind.problem(p.path, p.message, line, context=context))
        if p.severity is Severity.ERROR:
            failing.setdefault(p.path, []).append(p)
    for path, found in failing.items():
        rules = sorted({p.rule for p in found})
        first = min(found)
        msg = f"{len(found)} errors ({', '.join(rules)}), first: {first.rule} {first.message}"
        context = Context(layout.org, *where(path))
        out.append(codes.PUBLISHED_FAILING.problem(path, msg, first.line, context=context))
    return out


def _locator(layout: OrgLayout) -> Callable[[str], tuple[str, str]]:
    """path -> (system, benchmark): the result set it lies in (the tree model; an MLPerf
    HPC set's folder is <system>/<strong|weak>/<benchmark>), else as far as the layout
    tells. A result set's own folder names its system only, as a system folder does."""
    results = str(layout.root / "results") + "/"
    systems = str(layout.root / "systems") + "/"
    sets = [(rs.folder + "/", rs) for rs in layout.result_sets]  # benchmark folders: none nests

    def where(path: str) -> tuple[str, str]:
        for prefix, rs in sets:
            if path.startswith(prefix):
                return rs.system, rs.benchmark
            if path + "/" == prefix:
                return rs.system, ""
        if path.startswith(results):
            parts = path[len(results) :].split("/")
            return parts[0], parts[1] if len(parts) > 2 else ""
        if path.startswith(systems):
            name = path[len(systems) :]
            return (name[:-5] if name.endswith(".json") else ""), ""
        return "", ""

    return where


def cached_check_package(
    root: str | Path,
    ruleset: str = "auto",
    *,
    audit: bool = False,
    strict: bool = False,
    setting: Setting | None = None,
    cache: ResultCache | None = None,
    jobs: int = 1,
) -> PackageReport:
    """``check_package``, its report kept in ``cache`` (resultcache.py): an org whose
    tree, call and build are unchanged since a stored check gets that report back, the
    same report (docs/audit.md, "Cache"). Without ``cache``, or for an org that cannot
    be cached (a link in its tree), the check runs. ``jobs`` changes no result, so it
    is no part of the key."""
    import time

    from ..resultcache import racy, tree_stamp

    if cache is None:
        return check_package(root, ruleset, audit=audit, strict=strict, setting=setting, jobs=jobs)
    started = time.time_ns()
    before = tree_stamp(Path(root))
    if before is None:
        return check_package(root, ruleset, audit=audit, strict=strict, setting=setting, jobs=jobs)
    call = {
        "command": "package",
        "root": str(root),
        "resolved": str(Path(root).resolve()),
        "ruleset": ruleset,
        "audit": audit,
        "strict": strict,
        "setting": repr(setting),
    }
    key = cache.key(call, before[0])
    found = cache.get(key)
    if isinstance(found, PackageReport):
        return found
    report = check_package(root, ruleset, audit=audit, strict=strict, setting=setting, jobs=jobs)
    # Stored only when no file could have changed unseen (racy) or changed meanwhile.
    if not racy(before[1], started) and tree_stamp(Path(root)) == before:
        cache.put(key, report)
    return report
