"""Audit of a whole published round: every org checked in a worker process.

Records never leave the workers; each returns small rows (runs, scores, anomalies,
a problem summary). Duplicate logs are found across orgs in the parent from the
record-sequence hashes. The library writes only to the output folder it is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from ..errors import UsageError
from ..problems import Context, Problem
from ..results.tree import is_org_folder
from ..rounds import Setting
from ..selection import Selection
from . import codes, fingerprints, impact, ranking
from .audit_rows import AuditRun, AuditScore, CopyRow
from .curvespill import CurveSpill, PackedCurves, pack
from .package import (
    ANOMALY_COLUMNS,
    AUDIT_RUN_COLUMNS,
    anomaly_order,
    cached_check_package,
    check_package,
)
from .parallel import prewarm, tree_bytes
from .preview import preview_not_available

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..resultcache import ResultCache

# An org row's failure when its results/ holds no log: a verdict, not a crash.
NOTHING_AUDITED = "results/ holds no result log: nothing audited"


class OrgSummary(TypedDict):
    """One org's line of the orgs table (orgs.csv; ``ORG_COLUMNS`` are its keys)."""

    org: str
    passed: bool
    errors: int
    warnings: int
    beyond_official: int  # problems beyond the official package checker
    runs: int
    anomalies: int
    failure: str  # why the org could not be checked, '' when it was


ORG_COLUMNS: tuple[str, ...] = tuple(OrgSummary.__annotations__)
# A log hashed for identical copies (duplicate_logs): a run, or a file the checks skip.
HashedLog = AuditRun | CopyRow
# The problems table (Problem.row columns; ``org`` is the problem's context).
PROBLEM_COLUMNS = ("org", "path", "line", "column", "rule", "name", "severity", "message")


class AuditError(UsageError):
    """Usage error: no such folder, output inside the checked tree, unknown round."""


@dataclass
class OrgRows:
    org: str
    summary: OrgSummary
    runs: list[AuditRun] = field(default_factory=list)
    scores: list[AuditScore] = field(default_factory=list)
    anomalies: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # context: the org
    copies: list[CopyRow] = field(default_factory=list)  # hashes of unchecked logs
    # Each log's evaluation curve, by its path as rows name it (PackageReport.curves),
    # packed as the record writes it (curvespill.py).
    curves: PackedCurves = field(default_factory=PackedCurves)


@dataclass
class AuditResult:
    root: str
    ruleset: str
    orgs: list[OrgSummary] = field(default_factory=list)
    runs: list[AuditRun] = field(default_factory=list)
    scores: list[AuditScore] = field(default_factory=list)
    anomalies: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    copies: list[CopyRow] = field(default_factory=list)
    results: list[ranking.ResultRow] = field(default_factory=list)
    # Sub-folders of a results repository that name no round of this build (HPC rounds).
    skipped: list[str] = field(default_factory=list)
    # org (as rows name it) -> the round it was audited as (its ruleset, "1.0.0").
    org_rounds: dict[str, str] = field(default_factory=dict)
    # path -> evaluation curve and its benchmark from the workers, on disk, for the
    # report's record (html_report/record.py); not an output table.
    curves: CurveSpill = field(default_factory=CurveSpill)

    @property
    def clean(self) -> bool:
        """Every org passed and no anomaly but known habits (severity info)."""
        worth = [a for a in self.anomalies if a.impact != impact.INFO]
        return not worth and all(o["passed"] for o in self.orgs)


def selected(result: AuditResult, shown: Selection) -> AuditResult:
    """The audit with the anomalies and problems ``shown`` (``--select``, ``--ignore``,
    ``--preview``: selection.py); each org's verdict is the package checker's, which no
    selection changes (an official error is never deselected)."""
    from collections import Counter
    from dataclasses import replace

    from .. import catalog
    from ..problems import Severity

    problems = shown.apply(result.problems)
    kept = set(problems)
    hidden = [p for p in result.problems if p not in kept]
    # The orgs table counts what is shown: the warnings, and those beyond the official
    # checker (an audit has no --strict: a beyond problem is a warning).
    warnings = Counter(p.context.org for p in hidden if p.severity is Severity.WARNING)
    beyond = Counter(
        p.context.org
        for p in hidden
        if p.severity is Severity.WARNING and catalog.get(p.rule).beyond
    )
    orgs: list[OrgSummary] = []
    for org in result.orgs:
        shown_org = org.copy()
        shown_org["warnings"] -= warnings[org["org"]]
        shown_org["beyond_official"] -= beyond[org["org"]]
        orgs.append(shown_org)
    return replace(
        result,
        orgs=orgs,
        anomalies=shown.apply(result.anomalies),
        problems=problems,
    )


def org_folders(results_dir: Path, ruleset: str | None = None) -> list[Path]:
    """Sub-folders that look like a submitter (hold results/), sorted by name. For a
    round (``ruleset``) whose submissions nest (the registry's ``orgs_at_top`` not in
    force: v0.5, ``v0.5.0/<org>/<submission>/results/``), every folder below holding
    results/, never through a link (docs/scores.md, "v0.5")."""
    found = sorted(p for p in _subfolders(results_dir) if _is_org(p))
    if found or ruleset is None or _orgs_at_top(ruleset):
        return found
    return _nested_orgs(results_dir, NESTED_DEPTH)


# How deep a nested round's submission folders may lie below the folder audited: the
# published v0.5 tree has them at v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/ (4 levels).
NESTED_DEPTH = 6


def _orgs_at_top(ruleset: str) -> bool:
    from ..rounds import RoundError, parse_round

    try:
        return parse_round(ruleset).applies("orgs_at_top")
    except RoundError:
        return True  # an unknown round: the layout of every round since v0.6


def _nested_orgs(folder: Path, depth: int) -> list[Path]:
    found: list[Path] = []
    if depth <= 0:
        return found
    for sub in sorted(_subfolders(folder)):
        if sub.is_symlink() or sub.name.startswith("."):
            continue
        if _is_org(sub):
            found.append(sub)
        else:
            found.extend(_nested_orgs(sub, depth - 1))
    return found


def org_label(org: Path, root: Path, base: Path) -> str:
    """An org as the audit's rows name it: its folder's name, after the round folder's
    path from ``base`` when several rounds are audited (``v1.0/Google``). A nested
    submission folder (v0.5) is named by its own name, as ``score`` names its org
    (``submission``, ``resnet-tpuv3-512``)."""
    return str(Path(_relative(root, base)) / org.name)


def _subfolders(results_dir: Path) -> list[Path]:
    try:
        return [p for p in results_dir.iterdir() if p.is_dir() or p.is_symlink()]
    except OSError as err:
        raise AuditError(f"{results_dir}: cannot list ({err.strerror or err})") from None


def _is_org(folder: Path) -> bool:
    return is_org_folder(folder)  # as the package checker tells an org (results.tree)


def not_audited(results_dir: Path, base: Path, orgs: Sequence[Path] = ()) -> list[Problem]:
    """An anomaly for each sub-folder (or link) of the round that is not an org, nor
    holds one (``orgs``: a nested round's submission folders)."""
    out = []
    for folder in sorted(_subfolders(results_dir)):
        if _is_org(folder) or folder.name.startswith("."):
            continue
        if not folder.is_symlink() and any(folder in org.parents for org in orgs):
            continue
        if folder.is_symlink():
            why = "a symbolic link: not followed, nothing in it audited"
        elif (folder / "results").is_symlink():
            why = "its results/ is a symbolic link: not followed, nothing in it audited"
        else:
            why = "no results/ folder: nothing in it audited"
        shown = _relative(folder, base)
        out.append(codes.NOT_AUDITED.problem(shown, why, context=Context(folder.name)))
    return out


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def check_output_dir(results_dir: Path, out: Path) -> None:
    real_root, real_out = results_dir.resolve(), out.resolve()
    if real_out == real_root or real_root in real_out.parents:
        raise AuditError(
            f"--out {out} is inside the audited tree {results_dir}: refusing to write there"
        )


def audit_org(
    org_dir: str, ruleset: str, base: str, name: str | None = None, cache_dir: str | None = None
) -> OrgRows:
    """Worker: check one org and return only small, relativized rows; ``name``: the org
    as rows name it (``org_label``), else its path from ``base``; ``cache_dir``: the
    result cache's folder (resultcache.py), None for none."""
    rel = _relativizer(base)
    # "Google", or "v1.0/Google" when auditing several rounds
    org = name or rel(str(Path(org_dir)))
    try:
        cache = _cache(cache_dir)
        if cache is None:
            report = check_package(org_dir, ruleset, audit=True)
        else:
            report = cached_check_package(org_dir, ruleset, audit=True, cache=cache)
    except Exception as err:  # one org never stops the audit; its row says why
        failure = f"{type(err).__name__}: {err}"
        summary = _summary(org, False, 1, 0, 0, 0, 0, failure)
        return OrgRows(org, summary, problems=[_not_checked(org, failure)])
    counts = report.counts()
    # Rows name the org as orgs.csv does: with its round folder when rounds are audited
    # together (v1.0/Google), so that a result's key (org, system, benchmark) is unique.
    runs: list[AuditRun] = [{**row, "path": rel(row["path"]), "org": org} for row in report.runs]
    copies: list[CopyRow] = [{**row, "path": rel(row["path"]), "org": org} for row in report.copies]
    scores: list[AuditScore] = [
        {**s, "folder": rel(s["folder"]), "org": org} for s in report.scores
    ]
    found = [
        a.replace(path=rel(a.path), message=_strip(a.message, base), context=_in(a.context, org))
        for a in report.anomalies
    ]
    found = impact.classify(found)
    problems = [
        p.replace(path=rel(p.path), message=_strip(p.message, base), context=Context(org))
        for p in report.problems
    ]
    # Nothing checked is never a pass (docs/security.md): the org's row says why.
    empty = NOTHING_AUDITED if report.empty else ""
    summary = _summary(
        org,
        report.passed,
        counts["error"],
        counts["warning"],
        report.beyond,
        len(runs),
        len(found),
        empty,
    )
    curves = pack({rel(path): curve for path, curve in report.curves.items()})
    return OrgRows(org, summary, runs, scores, found, problems, copies, curves)


_CACHES: dict[str, ResultCache] = {}


def _cache(folder: str | None) -> ResultCache | None:
    """The worker's cache of ``folder`` (opened once per process); None when off or
    unusable (the CLI said why before the run)."""
    if folder is None:
        return None
    if folder not in _CACHES:
        from ..resultcache import CacheError, open_cache

        try:
            _CACHES[folder] = open_cache(folder)
        except CacheError:
            return None
    return _CACHES[folder]


def _not_checked(org: str, failure: str) -> Problem:
    """An org whose check raised: an input error in every output, never a quiet 0 runs."""
    from ..syntax_codes import INPUT_ERROR

    why = f"org not checked ({failure}): nothing in it audited"
    return INPUT_ERROR.problem(org, why, context=Context(org))


def _in(context: Context, org: str) -> Context:
    return context.replace(org=org) if context.org else context


def _summary(
    org: str,
    passed: bool,
    errors: int,
    warnings: int,
    beyond: int,
    runs: int,
    anomalies: int,
    failure: str,
) -> OrgSummary:
    return {
        "org": org,
        "passed": passed,
        "errors": errors,
        "warnings": warnings,
        "beyond_official": beyond,
        "runs": runs,
        "anomalies": anomalies,
        "failure": failure,
    }


def _strip(message: str, base: str) -> str:
    """Paths inside messages, relative to the audited folder like the path column."""
    return message.replace(base.rstrip("/") + "/", "")


def _relativizer(base: str) -> Callable[[str], str]:
    prefix = base.rstrip("/") + "/"

    def rel(path: str) -> str:
        return path[len(prefix) :] if path.startswith(prefix) else path

    return rel


def run_audit(
    results_dirs: str | Path | Sequence[str | Path],
    ruleset: str | None = None,
    jobs: int | None = None,
    on_done: Callable[[str, int, int], None] | None = None,
    setting: Setting | None = None,
    cache_dir: str | Path | None = None,
) -> AuditResult:
    """Audit every org of one round folder, or of several (duplicates across rounds).

    Paths are relative to the round folder, or to its parent when several are given
    (``v1.0/Google/results/...``). ``on_done(org, done, total)`` after each org.
    ``cache_dir``: keep each org's report in this result cache (resultcache.py; the
    same result either way), None for none.
    """
    if isinstance(results_dirs, str | Path):
        given = [Path(results_dirs)]
    else:
        given = [Path(d) for d in results_dirs]
    roots, skipped = expand_repositories(given)
    tasks: list[tuple[str, str, str, str]] = []  # org folder, round, base, org's name
    ignored: list[Problem] = []  # folders of a round that are not orgs (MLA: not audited)
    chosen_all = []
    for root in roots:
        chosen = round_of_folder(root, ruleset, setting)
        chosen_all.append(chosen)
        base = root if len(roots) == 1 else root.parent
        orgs = org_folders(root, chosen)
        tasks.extend((str(o), chosen, str(base), org_label(o, root, base)) for o in orgs)
        ignored.extend(not_audited(root, base, orgs))
    if not tasks:  # nothing checked is never success
        where = ", ".join(map(str, roots))
        raise AuditError(f"no org folder (one holding results/) in {where}: nothing audited")
    result = AuditResult(", ".join(map(str, roots)), ", ".join(sorted(set(chosen_all))))
    result.skipped = skipped
    result.anomalies.extend(ignored + linked_rounds(given))
    folder = None if cache_dir is None else str(cache_dir)
    for item in sorted(_run_workers(tasks, jobs, result.curves, on_done, folder), key=_org):
        result.orgs.append(item.summary)
        result.runs.extend(item.runs)
        result.scores.extend(item.scores)
        result.anomalies.extend(item.anomalies)
        result.problems.extend(item.problems)
        result.copies.extend(item.copies)
    bases = {name: base for _, _, base, name in tasks}
    # Across rounds: a preview system a round later (needs both rounds' scores).
    result.anomalies.extend(preview_not_available(result.scores))
    result.anomalies = finish(result.anomalies, result.runs, result.copies, bases)
    result.org_rounds = {name: chosen for _, chosen, _, name in tasks}
    result.results = ranking.results_table(result.scores, result.anomalies)
    _round_of_unscored(result.results, result.org_rounds)
    result.runs.sort(key=lambda r: r["path"])
    return result


def _round_of_unscored(rows: list[ranking.ResultRow], org_rounds: dict[str, str]) -> None:
    """A result only anomalies name has no score: its round is its org's."""
    from ..results.columns import round_columns

    for row in rows:
        if row["round"] is None and row["org"] in org_rounds:
            row.update(round_columns(org_rounds[row["org"]], row["benchmark"]))


# The orgs, anomalies and problems tables add these (docs/audit.md, "Output files").
ROUND_OF_ORG = ("round", "published")


def with_round(row: Mapping[str, object], org_rounds: dict[str, str]) -> dict[str, object]:
    """A row with the round its org was audited as and the round's publication date
    (empty for a row of no org, e.g. a folder that is not one)."""
    from ..results.columns import round_columns

    ruleset = org_rounds.get(str(row.get("org") or ""))
    found = round_columns(ruleset, "") if ruleset else None
    return {
        **row,
        "round": found["round"] if found else None,
        "published": found["published"] if found else None,
    }


def expand_repositories(folders: list[Path]) -> tuple[list[Path], list[str]]:
    """Folders to audit: a results repository root (no org folder, sub-folders named
    after rounds: ``v4.0``, ``training_results_v4.1``) stands for all its rounds, in
    round order, audited together so that re-use across rounds is found. Also the
    sub-folders that name no round of this build (``inference_results_v4.0``), to say so."""
    from ..rounds import registry

    roots: list[Path] = []
    skipped: list[str] = []
    for folder in folders:
        if not folder.is_dir() or org_folders(folder):
            roots.append(folder)
            continue
        subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
        named = [(registry().find(p.name), p) for p in subs]
        # Training rounds first, then HPC (one results repository each in MLCommons'
        # publications), each usage in round order.
        rounds = sorted((rnd.is_hpc, rnd.number, p) for rnd, p in named if rnd is not None)
        if not rounds:
            roots.append(folder)  # neither: round_of_folder says why
            continue
        roots.extend(p for *_, p in rounds)
        skipped.extend(str(p) for rnd, p in named if rnd is None and org_folders(p))
    return roots, skipped


def linked_rounds(folders: list[Path]) -> list[Problem]:
    """An anomaly (MLA021) for each round folder of a results repository root that is a
    link: never followed, and never skipped in silence."""
    from ..rounds import registry

    out = []
    for folder in folders:
        if not folder.is_dir() or org_folders(folder):
            continue
        for sub in sorted(_subfolders(folder)):
            if sub.is_symlink() and registry().find(sub.name) is not None:
                why = "a round folder that is a symbolic link: not followed, nothing in it audited"
                out.append(codes.NOT_AUDITED.problem(_relative(sub, folder), why))
    return out


def round_of_folder(root: Path, ruleset: str | None, setting: Setting | None = None) -> str:
    """The round of a round folder (flag > project setting > its name), checked usable."""
    from ..rounds import RoundError, choose
    from .package import STAGE_DATA

    if not root.is_dir():
        raise AuditError(f"{root}: not a folder")
    try:
        rnd = choose(root.resolve(), (), ruleset, setting, is_folder=True).round
    except RoundError as err:
        raise AuditError(f"cannot tell the round of {root}: {err}") from None
    missing = [why for kind in STAGE_DATA if (why := rnd.missing(kind))]
    if missing:
        raise AuditError(f"{'; '.join(missing)}: {root} cannot be audited for it")
    return rnd.version


def _run_workers(
    tasks: list[tuple[str, str, str, str]],
    jobs: int | None,
    spill: CurveSpill,
    on_done: Callable[[str, int, int], None] | None,
    cache_dir: str | None = None,
) -> list[OrgRows]:
    """Each org's rows, its curves moved into ``spill`` as it arrives (none held)."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
    rows: list[OrgRows] = []
    if workers == 1:  # no pool for one worker: simpler to debug, same result
        for task in tasks:
            rows.append(_spilled(audit_org(*task, cache_dir), spill))
            if on_done:
                on_done(rows[-1].org, len(rows), len(tasks))
        return rows
    for ruleset in sorted({task[1] for task in tasks}):
        prewarm(ruleset)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # Largest org first: the last task to finish is a small one, so both workers stay
        # busy to the end (the rows are sorted by org afterwards: same result).
        ordered = sorted(tasks, key=lambda t: -tree_bytes(t[0]))
        # pyarrow and pandas (the tables) are imported after the pool, not while it
        # works: 85 MB of the parent's beside two workers' at the cold audit's peak, for
        # no time saved when both cores are busy (docs/benchmarks.md).
        futures = [pool.submit(audit_org, *task, cache_dir) for task in ordered]
        for future in as_completed(futures):
            rows.append(_spilled(future.result(), spill))
            if on_done:
                on_done(rows[-1].org, len(rows), len(tasks))
    return rows


def _org(rows: OrgRows) -> str:
    return rows.org


def _spilled(rows: OrgRows, spill: CurveSpill) -> OrgRows:
    spill.add(rows.curves)
    rows.curves = PackedCurves()
    return rows


def finish(
    found: list[Problem],
    runs: list[AuditRun],
    copies: list[CopyRow],
    bases: dict[str, str],
) -> list[Problem]:
    """The workers' anomalies with those across results (identical logs, shared
    fingerprints), each with its severity, power logs rolled up, in table order: what
    ``run_audit`` and the report (``report/collect.py``) show. ``bases``: org (as rows
    name it) -> the folder its paths are relative to."""
    found = [*found, *duplicate_logs([*runs, *copies]), *near_duplicates(runs, bases)]
    found += lookalike_orgs(list(bases))
    return sorted(ranking.roll_up_power(impact.classify(found)), key=anomaly_order)


def lookalike_orgs(orgs: list[str]) -> list[Problem]:
    """MLA045 for each org folder that looks like another of its round (``orgs`` as rows
    name them: ``Acme``, or ``v1.0/Acme`` when rounds are audited together)."""
    from ..lookalike import lookalikes
    from ..safety import printable

    by_round: dict[str, list[str]] = {}
    for org in orgs:
        head, _, name = org.rpartition("/")
        by_round.setdefault(head, []).append(name)
    out = []
    for head, names in sorted(by_round.items()):
        for name, other in lookalikes(names):
            org = f"{head}/{name}" if head else name
            msg = (
                f"org folder {printable(name)} looks like {printable(other)}: it differs only "
                "in invisible characters, compatibility forms or letters of another script"
            )
            out.append(codes.LOOKALIKE_ORG.problem(org, msg, context=Context(org)))
    return out


def duplicate_logs(runs: list[HashedLog]) -> list[Problem]:
    """Identical record sequences under different paths: every copy after the first."""
    by_hash: dict[str, list[HashedLog]] = {}
    for row in runs:
        if row.get("body_sha1"):
            by_hash.setdefault(row["body_sha1"], []).append(row)
    out = []
    for group in by_hash.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda r: r["path"])
        original = group[0]["path"]
        for row in group[1:]:
            msg = f"identical records to {original} ({row['records']} records)"
            where = Context(row["org"], row["system"], row["benchmark"])
            out.append(codes.DUPLICATE_LOG.problem(row["path"], msg, context=where))
    return out


result_key = ranking.key_of  # the result a row belongs to (ranking.KEY_COLUMNS)


# (runs column, what the message calls it, anomaly kind) of the fingerprints, in order.
_FINGERPRINTS = (
    ("window", "run_start/run_stop time_ms", codes.SHARED_WINDOW),
    ("eval_curve_sha1", "evaluation curve", codes.SHARED_CURVE),
)


class _Fingerprinted(AuditRun):
    """A run with its timed window as a key (``fingerprints.window``)."""

    window: str


def near_duplicates(runs: list[AuditRun], bases: dict[str, str]) -> list[Problem]:
    """Runs sharing a fingerprint with a run of another result, files not identical:
    one anomaly per run after the first in path order, naming the first, the lines that
    differ. Copies inside one result are the workers' (``copies``); identical files are
    ``duplicate_logs``'s."""
    rows: list[_Fingerprinted] = [
        {**r, "window": fingerprints.window(r["run_start_ms"], r["run_stop_ms"])} for r in runs
    ]
    out: list[Problem] = []
    told: set[str] = set()  # a run named once, by the first fingerprint it shares
    for column, what, info in _FINGERPRINTS:
        for group in fingerprints.shared(rows, column):
            for i, row in enumerate(group):
                other = next((o for o in group[:i] if _apart(o, row)), None)
                if other is None or row["path"] in told:
                    continue
                told.add(row["path"])
                diff = fingerprints.differing_lines(_where(other, bases), _where(row, bases))
                msg = f"the same {what} as {other['path']} (another result); {diff}"
                where = Context(row["org"], row["system"], row["benchmark"])
                out.append(info.problem(row["path"], msg, context=where))
    return out


def _apart(a: AuditRun, b: AuditRun) -> bool:
    """Two runs of different results whose files differ."""
    return result_key(a) != result_key(b) and a.get("body_sha1") != b.get("body_sha1")


def _where(row: AuditRun, bases: dict[str, str]) -> Path:
    return Path(bases.get(row["org"], "")) / row["path"]


# The files an audit writes, in this order: (table, format).
OUTPUT_FILES = (
    ("results", "csv"),
    ("runs", "csv"),
    ("scores", "csv"),
    ("anomalies", "csv"),
    ("orgs", "csv"),
    ("problems", "csv"),
    ("runs", "parquet"),
    ("scores", "parquet"),
    ("anomalies", "json"),
    ("results", "parquet"),
    ("results", "json"),
)


def write_outputs(result: AuditResult, out: Path) -> list[Path]:
    """runs/scores (CSV + Parquet), anomalies (CSV + JSON), orgs and problems (CSV),
    written by the table formats of ``mllog_check.reporters.tables``."""
    from ..outputs import output_folder
    from ..reporters import tables
    from .table_types import RESULT_TYPES, RUN_TYPES, SCORE_COLUMNS, SCORE_TYPES

    output_folder(out)  # a link in its place is refused (docs/security.md)
    rounds = result.org_rounds
    named = {  # one schema per table for every round (table_types.py)
        "runs": tables.Table(AUDIT_RUN_COLUMNS, result.runs, types=RUN_TYPES),
        "scores": tables.Table(SCORE_COLUMNS, result.scores, types=SCORE_TYPES),
        "anomalies": tables.Table(
            (*ANOMALY_COLUMNS, *ROUND_OF_ORG),
            [with_round(ranking.anomaly_row(a), rounds) for a in result.anomalies],
        ),
        "orgs": tables.Table(
            (*ORG_COLUMNS, *ROUND_OF_ORG), [with_round(o, rounds) for o in result.orgs]
        ),
        "results": tables.Table(ranking.RESULT_COLUMNS, result.results, types=RESULT_TYPES),
        "problems": tables.Table(
            (*PROBLEM_COLUMNS, *ROUND_OF_ORG),
            [with_round(p.row(PROBLEM_COLUMNS), rounds) for p in result.problems],
        ),
    }
    return [
        tables.write_file(fmt, named[name], out / f"{name}.{tables.FORMATS[fmt].suffix}")
        for name, fmt in OUTPUT_FILES
    ]
