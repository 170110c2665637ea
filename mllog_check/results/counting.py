"""A result set's runs: each log's compliance verdict, and whether and why a run counts.

Shared by the score of a result set (``scores.py``) and of an MLPerf HPC weak-scaling
folder (``weak.py``), which imports nothing from ``scores.py`` (docs/design.md, layers).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..problems import Problem, Severity
from ..records import ParseResult
from ..rounds import Choice, Round, Setting, choose
from . import codes
from .runs import Run, build_run
from .scoring import RoundScoring, UnknownRound, scoring_for
from .tree import ResultSet, SystemDescription


def _compliance(
    result: ParseResult, ruleset: str | Round, scoring: RoundScoring | None
) -> tuple[bool | None, str]:
    """The compliance engine's verdict, or None (approximate) with the reason.

    Rounds without a ruleset yet, or whose scoring data says why the rules cannot
    decide (v0.6), fall back to the approximation (named in the score's reason).
    """
    from ..rules import UnknownRuleset, check_log  # looked up per call: tests replace it

    approximate = "compliance approximated (converged, clean parse)"
    if scoring is not None and scoring.approximate_compliance:
        return None, f"{approximate}: {scoring.approximate_compliance}"
    try:
        verdict = check_log(result, ruleset)
    except UnknownRuleset:
        version = ruleset.version if isinstance(ruleset, Round) else ruleset
        return None, f"{approximate}: no ruleset {version}"
    return bool(verdict.passed), ""


def build_runs(
    result_set: ResultSet,
    results: list[ParseResult],
    ruleset: str | Round,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[RoundScoring | None, list[Run]]:
    """The round's scoring data (None without) and one Run per result file, each with its
    compliance verdict (``verdicts``: those the caller already has). ``ruleset``: a
    Round, or a round in any spelling."""
    try:
        scoring: RoundScoring | None = scoring_for(ruleset)
    except UnknownRound:
        scoring = None
    bench = scoring.benchmark(result_set.benchmark) if scoring else None
    known = verdicts if scoring is None or not scoring.approximate_compliance else None
    from dataclasses import replace

    from .columns import republished, round_columns

    version = ruleset.version if isinstance(ruleset, Round) else ruleset
    where = round_columns(version, result_set.benchmark)
    runs = []
    for result in results:
        compliant: bool | None
        if known is not None and result.path in known:
            compliant, note = known[result.path], ""
        else:
            compliant, note = _compliance(result, ruleset, scoring)
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
        runs[-1] = replace(runs[-1], **where, republished=republished(ruleset, result.records))
    return scoring, runs


def division_of(runs: list[Run], system: SystemDescription) -> str | None:
    """The system description's division, as the official summarizer files a result (and
    decides whether to run the RCP check); else the one most runs log. v2.1 Intel
    16-nodes-SPR-pytorch-open logs "closed" in a system described as open."""
    if system.division in ("closed", "open"):
        return system.division
    logged = Counter(r.division for r in runs if r.division)
    if logged:
        return sorted(logged.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return system.division


def unread_quality(runs: list[Run]) -> list[Problem]:
    """MLR065 for each run whose quality value could not be read (and that did not
    reach the target with another value)."""
    return [
        codes.QUALITY_UNREADABLE.problem(
            run.path, f"quality value cannot be read ({run.unread_quality}): target not judged"
        )
        for run in runs
        if run.unread_quality
    ]


def not_counted_reason(run: Run, result: ParseResult, ruleset: str) -> str:
    """Why a timed run does not count (the first reason of: status, target, parse, rules)."""
    status = run.run_stop_status
    if run.reached_for_status is False:  # a round whose logs state no status
        return "run_stop states no status and no evaluation before it meets the target"
    if not run.succeeded and run.timed_by == "run_stop":
        return f"run_stop status {status!r}" if status else "run_stop has no status"
    if not run.converged and run.unread_quality:
        return f"a quality value cannot be read ({run.unread_quality})"
    if not run.converged:
        where = "before run_stop" if run.timed_by == "run_stop" else "by any evaluation"
        return f"the quality target is never reached {where}"
    if result.error_count:
        return f"{result.error_count} unparseable line(s)"
    return f"fails the {ruleset} compliance rules"


# The suffix of a run's error that olympic scoring accepts: the run counts as a dropped
# one and the result stays valid (the official package checker and summarizer accept it
# too; `score`, `summarize` and `package` say it alike).
TOLERATED = " (tolerated: this run counts as a dropped run; the result stays valid)"


def tolerated(problem: Problem) -> Problem:
    """An error of a run a valid result drops, as the warning the official tools make of
    it (docs/scores.md, "Runs not timed")."""
    if not problem.is_error:
        return problem
    return problem.replace(severity=Severity.WARNING, message=problem.message + TOLERATED)


def choose_round(
    result_set: ResultSet,
    results: list[ParseResult],
    ruleset: str = "auto",
    setting: Setting | None = None,
) -> Choice:
    """The round of a result set, where it came from and why (``round_of``)."""
    records = [r for result in results for r in result.records]
    return choose(result_set.files[0], records, ruleset, setting)
