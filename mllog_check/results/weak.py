"""MLPerf HPC weak scaling: many models trained at once, scored as one tuple.

A weak-scaling folder (``results/<system>/weak/<benchmark>/``) holds one log per model
trained concurrently. Its score, as the official result summarizer computes it
(docs/hpc.md): M, the models whose log passes compliance and has run_start and run_stop;
S, the size of one model instance (number_of_nodes × accelerators_per_node as logged,
equal in every counted log); T, the system's accelerators (its description); and the
time to train all, from the earliest run_start to the latest run_stop. The result needs
M at least the benchmark's run count. Throughput people quote: M per minute.

What the official summarizer skips without a word, this says: each model not counted
(MLR052, why), and logs in subfolders it does not read (MLR031, ``results.tree``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict, cast

from ..problems import Problem
from ..records import ParseResult, Record
from ..rounds import Round
from . import codes
from .counting import build_runs, division_of, not_counted_reason, unread_quality
from .runs import Run
from .tree import ResultSet, SystemDescription


@dataclass(frozen=True, slots=True)
class WeakScore:
    """One weak-scaling result: the tuple (T, M, S, time to train all)."""

    org: str
    system: str
    system_name: str | None
    benchmark: str
    division: str | None
    ruleset: str
    accelerators: int | None  # T: the system's accelerators (description; 0: none)
    models: int  # M: models counted (compliant, timed)
    instance_scale: int | None  # S: accelerators per model (as logged)
    minutes: float | None  # time to train all models; None when invalid
    models_per_minute: float | None  # M / minutes
    valid: bool
    reason: str
    models_total: int  # result logs in the folder
    required: int  # the benchmark's run count: the least M of a valid result
    folder: str = ""
    availability: str | None = None  # the system description's status
    # Closed: the RCP check over the models, as the official package checker runs it on
    # weak-scaling folders too (the summarizer does not); None when not checked.
    rcp_verdict: str | None = None
    rcp_message: str = ""
    # What the system is (docs/scores.md, "Hardware columns"), from its description.
    accelerator_model: str | None = None
    nodes: int | None = None
    host: str | None = None
    interconnect: str | None = None
    # Across rounds (results/columns.py; docs/scores.md, "Round and model columns"): the
    # round and its publication date, the benchmark's model in that round, the short
    # accelerator model and generation, a run dated before the previous round's results.
    round: str | None = None
    published: str | None = None
    benchmark_model: str | None = None
    accelerator_short: str | None = None
    accelerator_generation: str | None = None
    republished: bool = False


class WeakRow(TypedDict):
    """A weak-scaling score as a row of score's tables: WeakScore's fields in order, but
    host and interconnect."""

    org: str
    system: str
    system_name: str | None
    benchmark: str
    division: str | None
    ruleset: str
    accelerators: int | None
    models: int
    instance_scale: int | None
    minutes: float | None
    models_per_minute: float | None
    valid: bool
    reason: str
    models_total: int
    required: int
    folder: str
    availability: str | None
    rcp_verdict: str | None
    rcp_message: str
    accelerator_model: str | None
    nodes: int | None
    round: str | None
    published: str | None
    benchmark_model: str | None
    accelerator_short: str | None
    accelerator_generation: str | None
    republished: bool


WEAK_COLUMNS = tuple(WeakRow.__annotations__)


def score_weak_set(
    result_set: ResultSet,
    results: list[ParseResult],
    chosen: str | Round,
    system: SystemDescription,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[WeakScore, list[Run], list[Problem]]:
    """The weak-scaling score of one folder, its models as runs, and the problems.
    ``chosen``: the round (a Round, or any spelling); ``verdicts`` (path -> passed):
    compliance verdicts the caller already has."""
    from .columns import across_rounds

    score, runs, problems = _weak_runs(result_set, results, chosen, system, verdicts)
    return across_rounds(score, runs), runs, problems


def _weak_runs(
    result_set: ResultSet,
    results: list[ParseResult],
    chosen: str | Round,
    system: SystemDescription,
    verdicts: Mapping[str, bool] | None = None,
) -> tuple[WeakScore, list[Run], list[Problem]]:
    ruleset = chosen.version if isinstance(chosen, Round) else chosen
    scoring, runs = build_runs(result_set, results, chosen, verdicts)
    bench = scoring.benchmark(result_set.benchmark) if scoring else None
    score = WeakScore(
        org=result_set.org,
        system=result_set.system,
        system_name=system.system_name,
        benchmark=result_set.benchmark,
        division=division_of(runs, system),
        ruleset=ruleset,
        accelerators=system.accelerator_count,
        models=0,
        instance_scale=None,
        minutes=None,
        models_per_minute=None,
        valid=False,
        reason="",
        models_total=len(runs),
        required=bench.runs if bench is not None else 0,
        folder=result_set.folder,
        availability=system.status,
        accelerator_model=system.accelerator_model,
        nodes=system.nodes,
        host=system.host,
        interconnect=system.interconnect,
    )
    if scoring is None or bench is None:
        why = f"{result_set.benchmark} is not a benchmark of round {ruleset}"
        return replace(score, reason=why), runs, []
    problems: list[Problem] = unread_quality(runs)
    counted: list[Run] = []
    scales: dict[int, str] = {}
    for run, result in zip(runs, results, strict=True):
        if run.start_ms is None or run.stop_ms is None:
            missing = " and ".join(
                k for k, v in (("run_start", run.start_ms), ("run_stop", run.stop_ms)) if v is None
            )
            message = f"model not counted in weak scaling: no {missing}"
            problems.append(codes.MODEL_NOT_COUNTED.problem(run.path, message))
            continue
        if not run.compliant:
            why = not_counted_reason(run, result, ruleset)
            message = f"model not counted in weak scaling: {why}"
            problems.append(codes.MODEL_NOT_COUNTED.problem(run.path, message))
            continue
        counted.append(run)
        scale = instance_scale(result.records)
        if scale is not None:
            scales.setdefault(scale, run.path)
    if score.division == "closed" and scoring.rcp:
        from .rcp import check_rcp

        rcp = check_rcp(scoring.rcp, bench.name, runs, bench.drop, bench.runs, scoring.rcp_method)
        if rcp is not None:
            score = replace(score, rcp_verdict=rcp.verdict, rcp_message=rcp.message)
            problems.extend(rcp.problems(result_set.folder))
    return _tuple(score, counted, scales, problems), runs, problems


def _tuple(
    score: WeakScore, counted: list[Run], scales: dict[int, str], problems: list[Problem]
) -> WeakScore:
    models = len(counted)
    scale = next(iter(scales)) if len(scales) == 1 else None
    score = replace(score, models=models, instance_scale=scale)
    if len(scales) > 1:
        shown = ", ".join(f"{s} ({p.rsplit('/', 1)[-1]})" for s, p in sorted(scales.items()))
        message = f"models of different sizes (number_of_nodes × accelerators_per_node): {shown}"
        problems.append(codes.WEAK_SCALE_DIFFERS.problem(score.folder, message))
        return replace(score, reason=message)
    if models < score.required:
        message = (
            f"{models} of {score.models_total} models converged and compliant; the benchmark "
            f"needs at least {score.required}"
        )
        problems.append(codes.WEAK_TOO_FEW_MODELS.problem(score.folder, message))
        return replace(score, reason=message)
    minutes = time_to_train_all(counted)
    skipped = score.models_total - models
    notes = [f"{skipped} model(s) not counted" if skipped else "", _exceeds(score, problems)]
    reason = "; ".join(n for n in notes if n)
    return replace(
        score,
        minutes=minutes,
        models_per_minute=models / minutes if minutes > 0 else None,
        valid=True,
        reason=reason,
    )


def time_to_train_all(counted: list[Run]) -> float:
    """Minutes from the earliest run_start to the latest run_stop of the counted models
    (each has both: the official summarizer's time_to_train_all)."""
    start = min(r.start_ms for r in counted if r.start_ms is not None)
    stop = max(r.stop_ms for r in counted if r.stop_ms is not None)
    return (stop - start) / 60_000.0


def _exceeds(score: WeakScore, problems: list[Problem]) -> str:
    """MLR066 when M models of S accelerators each need more than the system's T. A
    system without accelerators (T = 0) logs accelerators_per_node 0, and S counts its
    nodes (instance_scale): then M × S is compared with the system's nodes."""
    used = score.models * score.instance_scale if score.instance_scale else None
    unit, has = "accelerators", score.accelerators
    if has == 0:
        unit, has = "nodes", score.nodes
    if used is None or has is None or used <= has:
        return ""
    if score.instance_scale == score.accelerators:
        # every model's log names the whole allocation, not its instance (HPC v2.0
        # HelmholtzAI HoreKa OC20, NVIDIA Eos DeepCAM): a logging habit, no break
        return ""
    message = (
        f"{score.models} models × {score.instance_scale} {unit} each (as logged) = "
        f"{used}, more than the system's {has}"
    )
    problems.append(codes.WEAK_EXCEEDS_SYSTEM.problem(score.folder, message))
    return message


def instance_scale(records: list[Record]) -> int | None:
    """number_of_nodes × accelerators_per_node (at least 1), from their first records;
    None when either is missing or not a whole number."""
    nodes = _first_int(records, "number_of_nodes")
    per_node = _first_int(records, "accelerators_per_node")
    if nodes is None or per_node is None:
        return None
    return nodes * max(per_node, 1)


def _first_int(records: list[Record], key: str) -> int | None:
    """The first record's value as the official summarizer's int() reads it."""
    found = next((r for r in records if r.key == key), None)
    value = None if found is None else found.value
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value.strip())
    return None


def weak_table(report: Any) -> tuple[list[str], list[WeakRow]]:
    """Weak-scaling scores as (columns, rows), one row per result."""
    rows = [cast(WeakRow, {name: getattr(w, name) for name in WEAK_COLUMNS}) for w in report.weak]
    return list(WEAK_COLUMNS), rows


@dataclass(frozen=True, slots=True)
class PerModelScore:
    """A weak-scaling result as the cost stage prices it: the whole system's time per
    model (time to train all / M), so that a run's cost is the cost of one model."""

    org: str
    system: str
    system_name: str | None
    benchmark: str  # "<benchmark> (weak, per model)": its own comparison group
    division: str | None
    ruleset: str
    minutes: float | None
    valid: bool
    reason: str
    availability: str | None
    accelerators: int | None  # T: the whole system runs the M models
    # the whole system's, as a cloud-hourly price counts instances (docs/cost.md)
    accelerator_model: str | None = None
    nodes: int | None = None
    host: str | None = None
    interconnect: str | None = None


def per_model_scores(weak: list[WeakScore]) -> list[PerModelScore]:
    """One priced row per weak-scaling result."""
    out = []
    for w in weak:
        minutes = w.minutes / w.models if w.minutes is not None and w.models else None
        note = f"time to train all {w.minutes:.2f} min / {w.models} models" if minutes else ""
        out.append(
            PerModelScore(
                org=w.org,
                system=w.system,
                system_name=w.system_name,
                benchmark=f"{w.benchmark} (weak, per model)",
                division=w.division,
                ruleset=w.ruleset,
                minutes=minutes,
                valid=w.valid and minutes is not None,
                reason=w.reason or note,
                availability=w.availability,
                accelerators=w.accelerators,
                accelerator_model=w.accelerator_model,
                nodes=w.nodes,
                host=w.host,
                interconnect=w.interconnect,
            )
        )
    return out
