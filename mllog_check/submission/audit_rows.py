"""What the audit collects of one result set while the package checker reads it: a
typed row per log (the runs table, ``package.AUDIT_RUN_COLUMNS``), each log's facts for
the set's anomalies, and the anomalies found in the set (docs/audit.md).

``check_package`` reads each log once and hands it here (``AuditRows.add``); after the
set is scored, ``finish`` adds the energies, the set's anomalies and its copies. Kept
apart from the package's own checks (``package._check_result_set``), which need none of
it when no audit runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NotRequired, TypedDict, cast

from ..problems import Context, Problem
from ..records import ParseResult
from ..results.runs import Run
from ..results.scores import Score, ScoreRow, as_row
from ..results.scoring import ScoringDataError, UnknownRound, scoring_for
from ..results.tree import ResultSet
from ..results.weak import WeakScore
from ..rounds import Round
from . import anomalies, codes, copies, set_anomalies
from .consistency import Declared


class AuditRun(TypedDict):
    """One row of the audit's runs table (``package.AUDIT_RUN_COLUMNS``, in that order)."""

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
    compliance: str
    compliance_errors: int
    body_sha1: str
    energy_j: float | None
    avg_power_w: float | None
    eval_curve_sha1: str
    # Across rounds (results/columns.py): the round, its publication date, the
    # benchmark's model in it, a run dated before the previous round's results.
    round: str | None
    published: str | None
    benchmark_model: str | None
    republished: bool


class AuditScore(ScoreRow):
    """One row of the audit's scores table (``table_types.SCORE_COLUMNS``) and of the
    package JSON's ``scores``: a score's row (``results.scores.ScoreRow``) after its place
    and MLPerf HPC's ``scaling``, with what ``copies.detect`` adds."""

    scaling: NotRequired[str]  # MLPerf HPC: strong or weak
    # The score without copied runs, when the set has copies (submission/copies.py).
    copies: NotRequired[int]
    minutes_without_copies: NotRequired[float | None]


def score_row(org: str, rs: ResultSet, score: Score | WeakScore) -> AuditScore:
    """A result set's score as the audit's and the package JSON's row: the place first,
    then the score's fields (its own org, system and benchmark)."""
    scaling = {"scaling": rs.scaling} if rs.scaling else {}  # MLPerf HPC: strong/weak
    place = {"org": org, "system": rs.system, "benchmark": rs.benchmark, **scaling}
    return cast(AuditScore, place | as_row(score))


class CopyRow(TypedDict):
    """A result file the checks skip (a nested folder): hashed for duplicate detection
    with the runs (``audit.duplicate_logs``), never scored."""

    org: str
    system: str
    benchmark: str
    path: str
    records: int
    body_sha1: str


class AuditRows:
    """One result set's audit rows and anomalies, collected as its logs are read."""

    def __init__(self, org: str, rs: ResultSet, rnd: Round | None = None) -> None:
        self.org = org
        self.rs = rs
        self.rnd = rnd
        # How the benchmark's runs end (v0.6 MiniGo: its eval_result; docs/scores.md).
        known = _bench_scoring(rs, rnd) if rnd is not None else None
        self.timed_by = known[0].timed_by if known is not None else "run_stop"
        self.runs: list[AuditRun] = []
        self.anomalies: list[Problem] = []
        self.seeds: list[tuple[str, Any, int]] = []
        self.set_facts: list[set_anomalies.SetFacts] = []

    def add(self, result: ParseResult, log: Declared, verdict: str, found: list[Problem]) -> None:
        """A log read: its row, its facts and its own anomalies."""
        path = result.path
        facts = anomalies.run_facts(result.records)
        self.seeds.append((path, facts.seed, facts.seed_line))
        in_set = set_anomalies.facts(path, result.records, facts.body_hash)
        self.set_facts.append(in_set)
        self.runs.append(
            run_row(self.org, self.rs, result, log, facts, verdict, found, in_set.curve, self.rnd)
        )
        self.anomalies.extend(self.placed(anomalies.detect(result.records, path, self.timed_by)))

    def finish(self, runs: list[Run], score: AuditScore | None, rnd: Round) -> None:
        """After the set is scored (``runs``, its ``score`` row): energies, repeated seeds,
        the set's anomalies and the score without its copies."""
        _run_energies(self.runs, runs)
        _eval_result_minutes(self.runs, runs)
        self.anomalies = _unlogged_status(self.anomalies, runs)
        self.anomalies.extend(self.placed(anomalies.repeated_seeds(self.seeds)))
        found = set_anomalies.detect(self.set_facts, _converged(self.rs, runs, rnd))
        self.anomalies.extend(self.placed(found))
        weak = self.rs.scaling == "weak"
        counted = copies.detect(self.set_facts, runs, score, _bench_scoring(self.rs, rnd), weak)
        self.anomalies.extend(self.placed(counted))

    def placed(self, found: Iterable[Problem]) -> list[Problem]:
        """Anomalies of this result set's logs, with their place in the round."""
        where = Context(self.org, self.rs.system, self.rs.benchmark)
        return [p.replace(context=where) for p in found]


def run_row(
    org: str,
    rs: ResultSet,
    result: ParseResult,
    log: Declared,
    facts: anomalies.RunFacts,
    verdict: str,
    found: list[Problem],
    curve: str,
    rnd: Round | None,
) -> AuditRun:
    from ..results.columns import republished, round_columns

    minutes = None
    if facts.run_start_ms is not None and facts.run_stop_ms is not None:
        minutes = (facts.run_stop_ms - facts.run_start_ms) / 60000.0
    return {
        "org": org,
        "system": rs.system,
        "benchmark": rs.benchmark,
        "path": result.path,
        "submission_org": _text(log.value("submission_org")),
        "division": _text(log.value("submission_division")),
        "submission_status": _text(log.value("submission_status")),
        "platform": _text(log.value("submission_platform")),
        "records": len(result.records),
        "parse_errors": result.error_count,
        "run_start_ms": facts.run_start_ms,
        "run_stop_ms": facts.run_stop_ms,
        "minutes": minutes,
        "run_stop_status": facts.run_stop_status,
        "seed": None if facts.seed is None else str(facts.seed),
        "compliance": verdict,
        "compliance_errors": sum(1 for p in found if p.is_error),
        "body_sha1": facts.body_hash,
        "energy_j": None,  # from the power logs, once the set is scored (finish)
        "avg_power_w": None,
        "eval_curve_sha1": curve,  # fingerprints.curve_hash
        **round_columns(rnd.ruleset if rnd is not None else "", rs.benchmark),
        "republished": rnd is not None and republished(rnd, result.records),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _eval_result_minutes(rows: list[AuditRun], runs: list[Run]) -> None:
    """The score's minutes of runs timed by their eval_result (v0.6 MiniGo: no
    run_stop), which the row's run_start/run_stop times cannot give."""
    timed = {r.path: r.minutes for r in runs if r.timed_by == "eval_result"}
    for row in rows:
        if row["minutes"] is None and timed.get(row["path"]) is not None:
            row["minutes"] = timed[row["path"]]


def _run_energies(rows: list[AuditRun], runs: list[Run]) -> None:
    """Each run's energy (power logs, docs/power.md) into its runs-table row."""
    measured = {r.path: r for r in runs if getattr(r, "energy_j", None) is not None}
    for row in rows:
        if row["path"] in measured:
            row["energy_j"] = measured[row["path"]].energy_j
            row["avg_power_w"] = measured[row["path"]].avg_power_w


def _unlogged_status(found: list[Problem], runs: list[Run]) -> list[Problem]:
    """MLA008 of a run_stop stating no status, in a round whose logs state none: the run
    ended with success when an evaluation met the target (``Run.reached_for_status``,
    docs/scores.md), so no anomaly; else the anomaly says what is missing."""
    read = {r.path: r.reached_for_status for r in runs if r.reached_for_status is not None}
    kept = []
    for problem in found:
        if problem.rule == codes.NOT_CONVERGED.code and problem.path in read:
            if read[problem.path]:
                continue
            message = "run_stop states no status and no evaluation before it meets the target"
            problem = problem.replace(message=message)
        kept.append(problem)
    return kept


def _converged(rs: ResultSet, runs: list[Run], rnd: Round) -> dict[str, bool] | None:
    """path -> quality target reached, as the results stage judged; None when the round's
    target for this benchmark is not known (then no run is said to miss it). A run
    whose quality value could not be read is left out (MLR065 says so)."""
    try:
        if rs.benchmark not in scoring_for(rnd).benchmarks:
            return None
    except (UnknownRound, ScoringDataError):  # no scoring data for the round
        return None
    return {str(run.path): bool(run.converged) for run in runs if not run.unread_quality}


def _bench_scoring(rs: ResultSet, rnd: Round) -> tuple[Any, bool] | None:
    """(the benchmark's scoring, run count exact) of the round; None when unknown."""
    try:
        scoring = scoring_for(rnd)
    except (UnknownRound, ScoringDataError):  # no scoring data for the round
        return None
    bench = scoring.benchmark(rs.benchmark)
    return None if bench is None else (bench, scoring.run_count == "exact")
