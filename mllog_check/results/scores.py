"""Scores per (org, system, benchmark, division): olympic mean, validity, RCP, seeds."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NotRequired, TypedDict, TypeVar, cast

from ..inputs import InputError, read_in_tree
from ..parsing import parse_file
from ..problems import Problem
from ..records import ParseResult, Record
from ..rounds import Round, RoundError, Setting, parse_round
from ..suggest import did_you_mean
from ..syntax_codes import INPUT_ERROR
from . import codes
from .cadence import cadence_problems
from .columns import across_rounds
from .counting import (
    build_runs,
    choose_round,
    division_of,
    not_counted_reason,
    tolerated,
    unread_quality,
)
from .hardware import accelerator_minutes
from .hparams import runs_disagree
from .runs import NO_MODEL_REACHED, Run, duration, eval_result_time
from .scoring import RoundScoring
from .seeds import check_seeds
from .tree import ResultSet, SystemDescription, discover, load_system
from .weak import WeakScore, score_weak_set


@dataclass(frozen=True, slots=True)
class Score:
    """One benchmark result of one system, as the results table shows it."""

    org: str
    system: str  # results folder name = system description id
    system_name: str | None  # from systems/<system>.json
    benchmark: str
    division: str | None
    ruleset: str
    minutes: float | None  # olympic mean (times scaling.json's factor); None when invalid
    valid: bool
    reason: str  # why invalid; notes (approximations, scaling) otherwise
    runs_counted: int  # runs that entered the olympic mean's sorted list
    rcp_verdict: str | None  # Pass, Fail, Interp. Fail, Missing, ...; None when not checked
    rcp_message: str
    availability: str | None  # the system description's status (onprem, cloud, preview...)
    accelerators: int | None  # number_of_nodes × accelerators_per_node
    runs_total: int = 0
    raw_minutes: float | None = None  # olympic mean before any scaling factor
    scaling_factor: float = 1.0
    folder: str = ""
    # Energy to train (power/ logs, docs/power.md): olympic mean of the runs' J, scaled.
    energy_j: float | None = None
    energy_method: str = ""  # "official", "readings over the run", "" without power logs
    # Beyond joules (docs/power.md): mean W over the kept runs' timed windows, the
    # energy score per accelerator, the node and switch shares of the kept runs' energy,
    # and training runs per hour per kW of that mean power.
    avg_power_w: float | None = None
    energy_per_accelerator_j: float | None = None
    node_energy_share: float | None = None
    switch_energy_share: float | None = None
    perf_per_watt: float | None = None
    # v2.1+ closed: reference mean / submission mean when faster than the reference mean
    # (1.0 when slower), as the round's RCP check computes it; None when not computed.
    rcp_scaling_factor: float | None = None
    # No scaling.json shipped while the RCP check normalizes: the score the official
    # tools would give once their package checker has written one (MLR013); None else.
    score_if_normalized: float | None = None
    # What it ran on (systems/<system>.json; docs/scores.md, "Hardware columns").
    accelerator_model: str | None = None
    nodes: int | None = None
    host: str | None = None
    interconnect: str | None = None
    accelerator_minutes: float | None = None  # minutes × accelerators
    # Closed, within one reference stdev of the RCP bound: the chance that N runs
    # converging like these pass the RCP check (results/rcp_confidence.py); None else.
    rcp_pass_probability: float | None = None
    # Across rounds (results/columns.py; docs/scores.md, "Round and model columns"): the
    # round and its publication date, the benchmark's model in that round, the short
    # accelerator model and generation, a run dated before the previous round's results.
    round: str | None = None
    published: str | None = None
    benchmark_model: str | None = None
    accelerator_short: str | None = None
    accelerator_generation: str | None = None
    republished: bool = False


class ScoreRow(TypedDict):
    """A ``Score`` or a ``WeakScore`` as a row (``as_row``: ``dataclasses.asdict``), as
    tables, JSON and the report take it. Keys and types are the two dataclasses'
    fields (a test holds them to both); those of one kind only are not in every row."""

    org: str
    system: str
    benchmark: str
    system_name: str | None
    division: str | None
    ruleset: str
    minutes: float | None
    valid: bool
    reason: str
    folder: str
    availability: str | None
    accelerators: int | None
    rcp_verdict: str | None
    rcp_message: str
    accelerator_model: str | None
    nodes: int | None
    host: str | None
    interconnect: str | None
    round: str | None
    published: str | None
    benchmark_model: str | None
    accelerator_short: str | None
    accelerator_generation: str | None
    republished: bool
    # Score only (time to train).
    runs_counted: NotRequired[int]
    runs_total: NotRequired[int]
    raw_minutes: NotRequired[float | None]
    scaling_factor: NotRequired[float]
    energy_j: NotRequired[float | None]
    energy_method: NotRequired[str]
    avg_power_w: NotRequired[float | None]
    energy_per_accelerator_j: NotRequired[float | None]
    node_energy_share: NotRequired[float | None]
    switch_energy_share: NotRequired[float | None]
    perf_per_watt: NotRequired[float | None]
    rcp_scaling_factor: NotRequired[float | None]
    score_if_normalized: NotRequired[float | None]
    accelerator_minutes: NotRequired[float | None]
    rcp_pass_probability: NotRequired[float | None]
    # WeakScore only (MLPerf HPC weak scaling, docs/hpc.md).
    models: NotRequired[int]
    instance_scale: NotRequired[int | None]
    models_per_minute: NotRequired[float | None]
    models_total: NotRequired[int]
    required: NotRequired[int]


def as_row(score: Score | WeakScore) -> ScoreRow:
    """A score's fields as a row, in their order."""
    import dataclasses

    return cast(ScoreRow, dataclasses.asdict(score))


_Kind = TypeVar("_Kind", Score, WeakScore)


def score_of(row: Mapping[str, Any], kind: type[_Kind]) -> _Kind:
    """The score a row shows (``as_row`` undone): the fields of ``kind`` only."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(kind)}
    return kind(**{k: v for k, v in row.items() if k in names})


@dataclass(frozen=True, slots=True, order=True)
class NotScored:
    """What could not be scored, and why: an input that cannot be read, a result set whose
    round nothing tells (or whose scoring data this build lacks), a closed result whose
    RCP data is named but absent. Never a pass: ``score`` exits 2, ``cost`` refuses. The
    problem shown for it is the parser's input error (MLS010). ``warning``: a linked
    folder not followed (the walk's warning): ``cost`` refuses, ``score`` goes on."""

    path: str
    reason: str
    warning: bool = False


@dataclass
class ScoreReport:
    scores: list[Score] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    not_scored: list[NotScored] = field(default_factory=list)
    # Logs that could not be read (a FIFO, a link leaving the tree): their MLS010.
    unread: list[Problem] = field(default_factory=list)
    # MLPerf HPC weak-scaling results (results/<system>/weak/<benchmark>/: docs/hpc.md)
    weak: list[WeakScore] = field(default_factory=list)


def compute_scores(
    paths: list[str], ruleset: str = "auto", setting: Setting | None = None
) -> ScoreReport:
    """Score every result set found below ``paths``.

    ``ruleset`` is a round in any spelling ("1.0.0", "v1.0") or "auto": the round of
    each result set as ``mllog_check.rounds.choose`` finds it (the project ``setting``,
    a round folder in the path, else the logs' content). A result set whose round
    nothing tells (or an unknown ruleset), or whose round's scoring data this build
    lacks, is not scored: its score is invalid with the reason, and ``not_scored`` says
    so (shown as the input error MLS010), which the ``score`` command turns into exit 2,
    as ``check`` does; so does an input that cannot be read.
    """
    sets, problems = discover(paths)
    report = ScoreReport(problems=problems)
    # discover reports inputs only (MLS010): each is an input not scored.
    report.not_scored.extend(NotScored(p.path, p.message, not p.is_error) for p in problems)
    for result_set in sets:
        root = result_set.root or None
        results = [parse_file(path, root=root) for path in result_set.files]
        report.unread.extend(_unread(results))
        system, issues = load_system(result_set.system_json, root)
        report.problems.extend(issues)
        try:
            choice = choose_round(result_set, results, ruleset, setting)
            chosen = choice.ruleset
        except RoundError as err:
            report.scores.append(_unscored(result_set, system, ruleset, str(err)))
            _not_scored(report, result_set.folder, str(err))
            continue
        missing = _missing_scoring(chosen)
        if missing is not None:
            why = "; ".join(n for n in (missing, choice.note) if n)
            report.scores.append(_unscored(result_set, system, chosen, why))
            _not_scored(report, result_set.folder, missing)
            continue
        if result_set.scaling == "weak":
            weak, runs, found = score_weak_set(result_set, results, chosen, system)
            report.weak.append(weak)
            report.runs.extend(runs)
            report.problems.extend(found)
            continue
        score, runs, found, unscored = _score_set(result_set, results, chosen, system)
        if unscored is not None:
            report.not_scored.append(unscored)
        if choice.note:  # the newest of several rounds: never silently
            score = replace(score, reason="; ".join(n for n in (score.reason, choice.note) if n))
        report.scores.append(score)
        report.runs.extend(runs)
        report.problems.extend(found)
    report.problems.sort()
    return report


def round_of(
    result_set: ResultSet,
    results: list[ParseResult],
    ruleset: str = "auto",
    setting: Setting | None = None,
) -> str:
    """The round ("1.0.0") to score a result set with; RoundError without evidence.

    One choice for the whole project (``mllog_check.rounds.choose``): the flag, else the
    project setting, else the innermost round folder above the result files, else the
    logs' content taken together (one result set is one submission of one round).
    """
    return choose_round(result_set, results, ruleset, setting).ruleset


def _missing_scoring(version: str) -> str | None:
    """Why a round's results cannot be scored in this build (its scoring data is missing)."""
    from ..rounds import parse_round

    missing = parse_round(version).missing("scoring")  # None too for v0.5 (no scoring at all)
    return f"{missing}: not scored" if missing else None


def _unscored(result_set: ResultSet, system: SystemDescription, ruleset: str, why: str) -> Score:
    blank = _blank(result_set, system, ruleset, system.division, len(result_set.files))
    return across_rounds(replace(blank, reason=f"not scored: {why}"))


def _version(ruleset: str | Round) -> str:
    """A round's text in scores and messages: a Round's version, or the spelling given."""
    return ruleset.version if isinstance(ruleset, Round) else ruleset


def _blank(
    result_set: ResultSet,
    system: SystemDescription,
    ruleset: str,
    division: str | None,
    runs_total: int,
) -> Score:
    """A result set's score before any run is counted: invalid, no minutes, no reason."""
    return Score(
        org=result_set.org,
        system=result_set.system,
        system_name=system.system_name,
        benchmark=result_set.benchmark,
        division=division,
        ruleset=ruleset,
        minutes=None,
        valid=False,
        reason="",
        runs_counted=0,
        rcp_verdict=None,
        rcp_message="",
        availability=system.status,
        accelerators=system.accelerators,
        runs_total=runs_total,
        folder=result_set.folder,
        accelerator_model=system.accelerator_model,
        nodes=system.nodes,
        host=system.host,
        interconnect=system.interconnect,
    )


def _unread(results: list[ParseResult]) -> list[Problem]:
    return [
        p
        for r in results
        if r.input_error
        for p in r.problems
        if p.rule == INPUT_ERROR.code and p.line == 0
    ]


def _not_scored(report: ScoreReport, folder: str, why: str) -> None:
    report.not_scored.append(NotScored(folder, why))
    report.problems.append(_no_round(folder, why))


def _no_round(folder: str, why: str) -> Problem:
    # A usage/input error as in `check --ruleset auto`: never guess a round.
    return INPUT_ERROR.problem(folder, why)


def _rcp_absent(division: str | None, scoring: RoundScoring) -> str | None:
    """Closed division: the round names RCP data this build lacks (docs/rounds.md)."""
    if division == "closed" and scoring.rcp_missing:
        return f"RCP not checked: {scoring.rcp_missing}"
    return None


def score_set(
    result_set: ResultSet,
    results: list[ParseResult],
    ruleset: str | Round,
    system: SystemDescription,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[Score, list[Run], list[Problem]]:
    """Score one result set of a round (a Round: the package checker's, chosen once; or
    any spelling). ``verdicts`` (path -> passed) are compliance verdicts the caller
    already has (the package checker), so that no log is checked twice."""
    score, runs, problems, _ = _score_set(result_set, results, ruleset, system, verdicts)
    return score, runs, problems


def _seeds_checked(chosen: str | Round) -> bool:
    """Whether the round's official tools check seeds (the registry's seeds_checked);
    a round the registry does not know keeps the check an error."""
    try:
        rnd = chosen if isinstance(chosen, Round) else parse_round(chosen)
    except RoundError:
        return True
    return rnd.applies("seeds_checked")


def _score_set(
    result_set: ResultSet,
    results: list[ParseResult],
    chosen: str | Round,
    system: SystemDescription,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[Score, list[Run], list[Problem], NotScored | None]:
    """``score_set``, and what of it could not be scored (its RCP data is absent)."""
    score, runs, problems, unscored = _score_runs(result_set, results, chosen, system, verdicts)
    return across_rounds(score, runs), runs, problems, unscored


def _score_runs(
    result_set: ResultSet,
    results: list[ParseResult],
    chosen: str | Round,
    system: SystemDescription,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[Score, list[Run], list[Problem], NotScored | None]:
    ruleset = _version(chosen)
    scoring, runs = build_runs(result_set, results, chosen, verdicts)
    bench = scoring.benchmark(result_set.benchmark) if scoring else None
    division = division_of(runs, system)
    header = _blank(result_set, system, ruleset, division, len(runs))
    if scoring is None:
        return replace(header, reason=f"no scoring data for ruleset {ruleset}"), runs, [], None
    if bench is None:
        hint = did_you_mean(result_set.benchmark, scoring.benchmarks)
        why = f"{result_set.benchmark} is not a benchmark of round {scoring.round}{hint}"
        return replace(header, reason=why), runs, [], None
    problems = _untimed(runs, results) + unread_quality(runs) + _approximated(result_set, runs)
    problems += _not_counted(runs, results, ruleset) + _duplicates(runs)
    outcome = _olympic(result_set, runs, scoring, bench.runs, bench.drop, problems)
    rcp_verdict, rcp_message, normalization, rcp_chance = None, "", None, None
    if division == "closed" and scoring.rcp:
        from .rcp import check_rcp

        rcp = check_rcp(
            scoring.rcp,
            bench.name,
            runs,
            bench.drop,
            bench.runs,
            scoring.rcp_method,
            bench.rcp_allowance,
        )
        if rcp is not None:
            rcp_verdict, rcp_message, rcp_chance = rcp.verdict, rcp.message, rcp.pass_probability
            normalization = rcp.normalization if rcp.passed else None
            problems.extend(rcp.problems(result_set.folder))
    unapplied = ""
    # The factor the round's RCP check computes (its package checker writes it into
    # scaling.json: submission/scaling_files.py), whether or not the score applies it.
    named = normalization
    if normalization is not None and not scoring.normalize_score:
        if normalization > 1.0:
            unapplied = f"RCP normalization factor {normalization:.4f} not applied (round's rule)"
        normalization = None
    if division == "closed":
        problems.extend(check_seeds(runs, result_set.folder, _seeds_checked(chosen)))
        problems.extend(cadence_problems(results, scoring.round, bench.name, bench.key))
        problems.extend(runs_disagree(results, chosen, result_set.folder))
    factor, factor_note, pending, unusable = _scaling(
        result_set.folder, normalization, result_set.root
    )
    problems.extend(unusable)
    if factor_note.startswith("scaled by"):
        unapplied = ""  # the published factor applies
    minutes = None if outcome.mean is None or unusable else outcome.mean * factor
    if_normalized = None
    if pending is not None and minutes is not None:
        if_normalized = minutes * pending
        problems.append(_normalization_pending(result_set.folder, minutes, pending))
    notes = [outcome.reason, factor_note, unapplied]
    notes += sorted({r.compliance_note for r in runs} - {""})
    rcp_absent = _rcp_absent(division, scoring)
    if rcp_absent is not None:
        # Data named but absent from this build: never a pass (docs/rounds.md, exit 2).
        notes.append(rcp_absent)
        problems.append(_no_round(result_set.folder, rcp_absent))
    elif division == "closed" and scoring.rcp and rcp_verdict is None and bench.rcp:
        notes.append(f"RCP not checked: round {ruleset}'s RCP data has no entry for {bench.name}")
    score = replace(
        header,
        minutes=minutes,
        valid=minutes is not None,
        reason="; ".join(n for n in notes if n),
        runs_counted=outcome.counted,
        rcp_verdict=rcp_verdict,
        rcp_message=rcp_message,
        raw_minutes=outcome.mean,
        scaling_factor=factor,
        rcp_scaling_factor=named,
        score_if_normalized=if_normalized,
        accelerator_minutes=accelerator_minutes(minutes, header.accelerators),
        rcp_pass_probability=rcp_chance,
    )
    if score.valid:  # an untimed run the olympic mean drops: the official tools accept it
        problems = [tolerated(p) if p.rule == codes.RUN_INCOMPLETE.code else p for p in problems]
    unscored = None if rcp_absent is None else NotScored(result_set.folder, rcp_absent)
    return (*_with_energy(score, runs, problems, results, bench.drop), unscored)


def _with_energy(
    score: Score, runs: list[Run], problems: list[Problem], results: list[ParseResult], drop: int
) -> tuple[Score, list[Run], list[Problem]]:
    """The energy columns, when the folder has power logs (mllog_check.power)."""
    from ..power import perf_per_watt
    from ..power.score import energy_of_set

    energy = energy_of_set(score.folder, results, runs, drop, score.scaling_factor)
    if energy is None:
        return score, runs, problems
    runs = [_run_energy(r, energy.per_run.get(r.path)) for r in runs]
    joules, accelerators = energy.joules, score.accelerators
    score = replace(
        score,
        energy_j=joules,
        energy_method=energy.method,
        avg_power_w=energy.avg_power_w,
        energy_per_accelerator_j=joules / accelerators if joules and accelerators else None,
        node_energy_share=energy.node_share,
        switch_energy_share=energy.switch_share,
        perf_per_watt=perf_per_watt(score.minutes, energy.avg_power_w),
    )
    return score, runs, [*problems, *energy.problems]


def _run_energy(run: Run, joules: float | None) -> Run:
    from ..power import average_power

    return replace(run, energy_j=joules, avg_power_w=average_power(joules, run.minutes))


def _untimed(runs: list[Run], results: list[ParseResult]) -> list[Problem]:
    problems = []
    for run, result in zip(runs, results, strict=True):
        if run.minutes is not None:
            continue
        if run.timed_by == "eval_result":  # v0.6 MiniGo (docs/scores.md)
            _, why = eval_result_time(_first_record(result, "eval_result"))
            failed = why.endswith(NO_MODEL_REACHED)  # a failed run; else a time unusable
            code = codes.RUN_INCOMPLETE if failed else codes.RUN_TIME_UNUSABLE
            problems.append(code.problem(run.path, f"{why}: run not timed"))
            continue
        keys = {r.key for r in result.records}
        missing = " and ".join(k for k in ("run_start", "run_stop") if k not in keys)
        _, untimed = duration(_first_record(result, "run_start"), _first_record(result, "run_stop"))
        if untimed:
            message = f"{untimed}: run not timed"
            problems.append(codes.RUN_TIME_UNUSABLE.problem(run.path, message))
            continue
        if result.input_error:  # say why it was not read (a link leaving the tree, a FIFO)
            unread = [p.message for p in result.problems if p.line == 0 and p.is_error]
            why = f"not read ({unread[0] if unread else 'unreadable'})"
        elif not result.records:
            why = "no MLLOG record (empty or unreadable file)"
        else:
            why = f"no {missing}" + (" (file truncated?)" if "run_stop" in missing else "")
        problems.append(codes.RUN_INCOMPLETE.problem(run.path, f"{why}: run not timed"))
    return problems


def _approximated(result_set: ResultSet, runs: list[Run]) -> list[Problem]:
    """MLR067 (info), once per result, when compliance was approximated and why."""
    notes = sorted({r.compliance_note for r in runs} - {""})
    return [codes.COMPLIANCE_APPROXIMATED.problem(result_set.folder, n) for n in notes]


def _first_record(result: ParseResult, key: str) -> Record | None:
    return next((r for r in result.records if r.key == key), None)  # as build_run takes it


def _not_counted(runs: list[Run], results: list[ParseResult], ruleset: str) -> list[Problem]:
    """Why each timed run does not count (the official summarizer drops it the same way)."""
    problems = []
    for run, result in zip(runs, results, strict=True):
        status = run.run_stop_status
        if run.counted and not run.succeeded and run.timed_by == "run_stop":
            shown = repr(status) if status else "missing"
            message = f"run_stop status {shown}, yet the run passes compliance and counts"
            problems.append(codes.COUNTED_DESPITE_STATUS.problem(run.path, message))
        if run.counted or run.minutes is None:
            continue
        message = f"run not counted: {not_counted_reason(run, result, ruleset)}"
        problems.append(codes.RUN_NOT_COUNTED.problem(run.path, message))
    return problems


def _duplicates(runs: list[Run]) -> list[Problem]:
    """Two result files of one run: same run_start and run_stop times to the millisecond."""
    seen: dict[tuple[float, float], Run] = {}
    problems = []
    for run in runs:
        if run.start_ms is None or run.stop_ms is None:
            continue
        first = seen.setdefault((run.start_ms, run.stop_ms), run)
        if first is not run:
            name = first.path.rsplit("/", 1)[-1]
            message = f"same run_start and run_stop times as {name}: a copy of one run"
            problems.append(codes.DUPLICATE_RUN.problem(run.path, message))
    return problems


@dataclass(frozen=True, slots=True)
class _Outcome:
    mean: float | None
    counted: int
    reason: str


def olympic_mean(values: list[float], drop: int, already_dropped: int = 0) -> float | None:
    """Mean without the ``drop`` fastest and ``drop`` slowest; runs already dropped
    (failed) stand for the slowest ones. None when nothing is left."""
    ordered = sorted(values)
    kept = ordered[drop : len(ordered) - max(drop - already_dropped, 0)]
    return statistics.fmean(kept) if kept else None


def _olympic(
    result_set: ResultSet,
    runs: list[Run],
    scoring: RoundScoring,
    required: int,
    drop: int,
    problems: list[Problem],
) -> _Outcome:
    times = [r.minutes for r in runs if r.counted and r.minutes is not None]
    failed = len(runs) - len(times)
    folder = result_set.folder
    exact = scoring.run_count == "exact"
    notes = []
    if (exact and len(runs) != required) or len(runs) < required:
        # The package checker rejects the count; the summarizer scores the runs there
        # are all the same (it never counts them), and its score is the published one
        # (v1.0 Supermicro unet3d: 22 of 40 runs, 41.22 min; docs/scores.md).
        rule = "exactly" if exact else "at least"
        why = f"{len(runs)} runs; round {scoring.round} requires {rule} {required}"
        problems.append(codes.RUN_COUNT.problem(folder, why))
        notes.append(f"{why} (scored as the official summarizer does, which never counts runs)")
    if failed > drop:
        why = f"{failed} runs failed (not converged, not compliant or not timed); at most {drop}"
        problems.append(codes.TOO_MANY_FAILED.problem(folder, why))
        return _Outcome(None, len(times), "; ".join([*notes, why]))
    mean = olympic_mean(times, drop, failed)
    if mean is None:
        notes.append("no run left after dropping the fastest and slowest")
        return _Outcome(None, len(times), "; ".join(notes))
    if failed:
        notes.append(f"{failed} failed run(s) counted as the dropped slowest")
    return _Outcome(mean, len(times), "; ".join(notes))


def _scaling(
    folder: str, normalization: float | None = None, root: str = ""
) -> tuple[float, str, float | None, list[Problem]]:
    """The factor the score is multiplied by, a note saying where it comes from, the RCP
    normalization factor still to be written (None when there is none), and the problem
    when scaling.json is there but unusable (then the result gets no score).

    A committee scaling factor (scaling.json beside the results, read only, never
    written) wins: it is what the published results applied. Without one the score is
    what the tree says, as the official result summarizer's first run gives it: its RCP
    step only writes the factor of a v2.1+ closed result faster than the reference mean
    into scaling.json, for the runs after (docs/scores.md, "Scaling"). The file is read
    only inside the tree (``inputs.read_in_tree``); its factor must be finite and > 0
    (docs/security.md).
    """
    path = Path(folder) / "scaling.json"
    computed = normalization if normalization is not None and normalization > 1.0 else None
    if not (path.is_file() or path.is_symlink() or path.exists()):
        return 1.0, "", computed, []
    try:
        data: Any = json.loads(read_in_tree(path, Path(root) if root else None))
        factor = float(data["scaling_factor"])
    except InputError as err:
        return _unusable(path, f"scaling.json {err}")
    except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError):
        return 1.0, "scaling.json unreadable: not applied", None, []
    if not (math.isfinite(factor) and SCALING_MIN <= factor <= SCALING_MAX):
        why = f"is outside [{SCALING_MIN:g}, {SCALING_MAX:g}]"
        if not (math.isfinite(factor) and factor > 0):
            why = "is not a finite number above 0"
        return _unusable(path, f"scaling_factor {factor!r} {why}")
    note = f"scaled by {factor:g} (scaling.json)"
    if normalization is not None and abs(factor - normalization) > 1e-9 * factor:
        note += f"; the RCP check of this round's reference data gives {normalization:.4f}"
    return factor, note, None, []


# A committee scaling factor lengthens a time to train (the RCP normalization of a result
# faster than the reference mean: training_rules.adoc, "Convergence Points"), never
# shortens it; published trees use 1.0011 to 1.1667 (44 scaling.json files, v1.0-v5.1).
# 1e-300 or 1e300 made a 0.00-minute or 300-digit score that passed (docs/security.md).
SCALING_MIN, SCALING_MAX = 1.0, 10.0


def _normalization_pending(folder: str, minutes: float, factor: float) -> Problem:
    message = (
        f"no scaling.json: scored as the tree says ({minutes:.2f} min); the official package "
        f"checker would write scaling_factor {factor:.4f} here (RCP: faster than the "
        f"reference mean), and the score would then be {minutes * factor:.2f} min"
    )
    return codes.NORMALIZATION_PENDING.problem(folder, message)


def _unusable(path: Path, why: str) -> tuple[float, str, float | None, list[Problem]]:
    message = f"{why}: the result is not scored"
    return 1.0, message, None, [codes.SCALING_UNUSABLE.problem(str(path), message)]


def score_table(report: ScoreReport) -> tuple[list[str], list[ScoreRow]]:
    """Scores as (columns, rows): one row per score, every Score field."""
    import dataclasses

    columns = [f.name for f in dataclasses.fields(Score)]
    return columns, [as_row(s) for s in report.scores]


def run_table(report: ScoreReport) -> tuple[list[str], list[ScoreRun]]:
    """Runs as (columns, rows), seeds as a list per run."""
    return list(SCORE_RUN_COLUMNS), [run_row(r) for r in report.runs]


def float_columns(kind: type) -> tuple[str, ...]:
    """The fields of a row type declared float: float64 in every frame and Parquet file,
    even when every value is None (``energy_j`` without power logs)."""
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(kind) if "float" in str(f.type))


def _frame(columns: list[str], rows: Sequence[Mapping[str, Any]], floats: tuple[str, ...]) -> Any:
    from ..extras import require

    frame = require("pandas", "a DataFrame").DataFrame(rows, columns=columns)
    for column in floats:
        if column in frame.columns:
            frame[column] = frame[column].astype("float64")
    return frame


def scores_frame(report: ScoreReport) -> Any:
    """Scores as a pandas DataFrame (one row per score; pandas, of the analysis extra,
    loads here); float columns are float64."""
    columns, rows = score_table(report)
    return _frame(columns, rows, float_columns(Score))


def runs_frame(report: ScoreReport) -> Any:
    """Runs as a pandas DataFrame (seeds as a list per run)."""
    columns, rows = run_table(report)
    return _frame(columns, rows, float_columns(Run))


class ScoreRun(TypedDict):
    """One row of ``score``'s runs table (``SCORE_RUN_COLUMNS``, in that order)."""

    path: str
    org: str
    system: str
    benchmark: str
    division: str | None
    minutes: float | None
    run_stop_status: str | None
    converged: bool
    compliant: bool
    epochs_or_samples: float | None
    global_batch_size: int | None
    seeds: list[Any]
    platform: str | None
    energy_j: float | None
    avg_power_w: float | None
    note: str
    round: str | None
    published: str | None
    benchmark_model: str | None
    republished: bool


# The runs table of `score` (a Run's fields; not the audit's runs table,
# submission.package.AUDIT_RUN_COLUMNS: one row per log with its hashes): the keys of
# its row type, in order.
SCORE_RUN_COLUMNS: tuple[str, ...] = tuple(ScoreRun.__annotations__)


def run_row(run: Run) -> ScoreRun:
    return {
        "path": run.path,
        "org": run.org,
        "system": run.system,
        "benchmark": run.benchmark,
        "division": run.division,
        "minutes": run.minutes,
        "run_stop_status": run.run_stop_status,
        "converged": run.converged,
        "compliant": run.compliant,
        "epochs_or_samples": run.epochs_or_samples,
        "global_batch_size": run.global_batch_size,
        "seeds": list(run.seeds),
        "platform": run.platform,
        "energy_j": run.energy_j,
        "avg_power_w": run.avg_power_w,
        "note": run.note,
        "round": run.round,
        "published": run.published,
        "benchmark_model": run.benchmark_model,
        "republished": run.republished,
    }
