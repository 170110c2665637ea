"""Scores per (org, system, benchmark, division): olympic mean, validity, RCP, seeds."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..parsing import parse_file
from ..problems import Problem
from ..records import ParseResult
from . import codes
from .runs import Run, build_run
from .scoring import ROUND_RULESETS, RoundScoring, UnknownRound, scoring_for
from .seeds import check_seeds
from .tree import ResultSet, SystemDescription, discover, load_system


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
    status: str | None  # availability from the system description
    accelerators: int | None  # number_of_nodes × accelerators_per_node
    runs_total: int = 0
    raw_minutes: float | None = None  # olympic mean before any scaling factor
    scaling_factor: float = 1.0
    folder: str = ""


@dataclass
class ScoreReport:
    scores: list[Score] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def compute_scores(paths: list[str], ruleset: str = "1.0.0") -> ScoreReport:
    """Score every result set found below ``paths`` ("auto": ruleset from folder names)."""
    sets, problems = discover(paths)
    report = ScoreReport(problems=problems)
    for result_set in sets:
        results = [parse_file(path) for path in result_set.files]
        chosen = _ruleset(ruleset, result_set, results)
        system, issues = load_system(result_set.system_json)
        report.problems.extend(issues)
        score, runs, found = score_set(result_set, results, chosen, system)
        report.scores.append(score)
        report.runs.extend(runs)
        report.problems.extend(found)
    report.problems.sort()
    return report


def _ruleset(requested: str, result_set: ResultSet, results: list[ParseResult]) -> str:
    if requested != "auto":
        return requested
    hint = result_set.round_hint
    if hint is not None:
        # v0.5 and v0.6 have no scoring data: their scores say so instead of guessing.
        return ROUND_RULESETS.get(hint, f"{hint[1:]}.0")
    # From the logs: benchmarks that exist in one round only (refined elsewhere later).
    keys = {str(r.value) for res in results for r in res.records if r.key == "submission_benchmark"}
    if keys & {"gnmt", "transformer"}:
        return "0.7.0"
    return "1.0.0"


def _compliance(result: ParseResult, ruleset: str) -> tuple[bool | None, str]:
    """The compliance engine's verdict, or None (approximate) with the reason.

    Imported here: a single-file check must not pay for it, and rounds without a
    ruleset yet fall back to the approximation (named in the score's reason).
    """
    try:
        from ..rules import UnknownRuleset, check_log
    except ImportError:
        return None, "compliance approximated (converged, clean parse): no compliance engine"
    try:
        verdict = check_log(result, ruleset)
    except UnknownRuleset:
        return None, f"compliance approximated (converged, clean parse): no ruleset {ruleset}"
    return bool(verdict.passed), ""


def score_set(
    result_set: ResultSet, results: list[ParseResult], ruleset: str, system: SystemDescription
) -> tuple[Score, list[Run], list[Problem]]:
    try:
        scoring: RoundScoring | None = scoring_for(ruleset)
    except UnknownRound:
        scoring = None
    bench = scoring.benchmarks.get(result_set.benchmark) if scoring else None
    runs = []
    for result in results:
        compliant, note = _compliance(result, ruleset)
        runs.append(
            build_run(
                result,
                result_set.org,
                result_set.system,
                result_set.benchmark,
                bench,
                compliant,
                note,
            )
        )
    division = _division(runs, system)
    header = Score(
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
        status=system.status,
        accelerators=system.accelerators,
        runs_total=len(runs),
        folder=result_set.folder,
    )
    if scoring is None:
        return replace(header, reason=f"no scoring data for ruleset {ruleset}"), runs, []
    if bench is None:
        why = f"{result_set.benchmark} is not a benchmark of round {scoring.round}"
        return replace(header, reason=why), runs, []
    problems = _untimed(runs)
    outcome = _olympic(result_set, runs, scoring, bench.runs, bench.drop, problems)
    factor, factor_note = _scaling(result_set.folder)
    minutes = None if outcome.mean is None else outcome.mean * factor
    notes = [outcome.reason, factor_note, *sorted({r.compliance_note for r in runs} - {""})]
    rcp_verdict, rcp_message = None, ""
    if division == "closed" and scoring.rcp:
        from .rcp import check_rcp

        rcp = check_rcp(scoring.rcp, result_set.benchmark, runs, bench.drop)
        if rcp is not None:
            rcp_verdict, rcp_message = rcp.verdict, rcp.message
            problems.extend(rcp.problems(result_set.folder))
    if division == "closed":
        problems.extend(check_seeds(runs, result_set.folder))
    score = replace(
        header,
        minutes=minutes,
        valid=outcome.mean is not None,
        reason="; ".join(n for n in notes if n),
        runs_counted=outcome.counted,
        rcp_verdict=rcp_verdict,
        rcp_message=rcp_message,
        raw_minutes=outcome.mean,
        scaling_factor=factor,
    )
    return score, runs, problems


def _division(runs: list[Run], system: SystemDescription) -> str | None:
    logged = Counter(r.division for r in runs if r.division)
    if logged:
        return sorted(logged.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return system.division


def _untimed(runs: list[Run]) -> list[Problem]:
    return [
        codes.problem(codes.RUN_INCOMPLETE, r.path, "no run_start or run_stop: run not timed")
        for r in runs
        if r.minutes is None
    ]


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
    if (exact and len(runs) != required) or len(runs) < required:
        rule = "exactly" if exact else "at least"
        why = f"{len(runs)} runs; round {scoring.round} requires {rule} {required}"
        problems.append(codes.problem(codes.RUN_COUNT, folder, why))
        return _Outcome(None, len(times), why)
    if failed > drop:
        why = f"{failed} runs failed (not converged, not compliant or not timed); at most {drop}"
        problems.append(codes.problem(codes.TOO_MANY_FAILED, folder, why))
        return _Outcome(None, len(times), why)
    mean = olympic_mean(times, drop, failed)
    if mean is None:
        return _Outcome(None, len(times), "no run left after dropping the fastest and slowest")
    note = f"{failed} failed run(s) counted as the dropped slowest" if failed else ""
    return _Outcome(mean, len(times), note)


def _scaling(folder: str) -> tuple[float, str]:
    """A committee scaling factor (scaling.json beside the results), read only."""
    path = Path(folder) / "scaling.json"
    if not path.is_file():
        return 1.0, ""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        factor = float(data["scaling_factor"])
    except (OSError, ValueError, KeyError, TypeError):
        return 1.0, "scaling.json unreadable: not applied"
    return factor, f"scaled by {factor:g} (scaling.json)"


def scores_frame(report: ScoreReport) -> Any:
    """Scores as a pandas DataFrame (one row per score; pandas loads here)."""
    import dataclasses

    import pandas as pd

    columns = [f.name for f in dataclasses.fields(Score)]
    return pd.DataFrame([dataclasses.asdict(s) for s in report.scores], columns=columns)


def runs_frame(report: ScoreReport) -> Any:
    """Runs as a pandas DataFrame (seeds as a list per run)."""
    import pandas as pd

    rows = [run_row(r) for r in report.runs]
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))


RUN_COLUMNS = (
    "path",
    "org",
    "system",
    "benchmark",
    "division",
    "minutes",
    "status",
    "converged",
    "compliant",
    "epochs_or_samples",
    "global_batch_size",
    "seeds",
    "platform",
)


def run_row(run: Run) -> dict[str, Any]:
    return {name: getattr(run, name) for name in RUN_COLUMNS} | {"seeds": list(run.seeds)}
