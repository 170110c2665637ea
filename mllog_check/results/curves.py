"""Convergence curves from a log's records: every evaluation before run_stop, with where
the run converged (docs/report.md). The audit's workers take them from the records they
parsed for the checks (submission/package.py), so that the audit's record needs no
second read of a log; the report reads a log for them only when no audit did
(html_report/curves.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..records import Record

MS_PER_MINUTE = 60_000.0


@dataclass(frozen=True, slots=True)
class EvalPoint:
    line: int
    epoch: float | None  # metadata epoch_num (BERT: samples), as logged
    minutes: float | None  # since run_start
    value: Any  # a number, or a dict / list of numbers (Mask R-CNN BBOX and SEGM)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt by its constructor: 2.3x faster to unpickle than a frozen dataclass's
        # setstate, for curves a report's workers read (docs/benchmarks.md, "A
        # record-sized re-audit"; the audit's cache holds them as text now).
        return (EvalPoint, (self.line, self.epoch, self.minutes, self.value))


@dataclass(frozen=True, slots=True)
class RunCurve:
    path: str
    points: tuple[EvalPoint, ...]
    batch_size: int | None
    converged_at: float | None  # epochs (BERT: samples) as the RCP rules count them
    stop_line: int  # run_stop's line, 0 when missing
    start_ms: float | None = None  # run_start and run_stop times, for the power logs
    stop_ms: float | None = None

    def __reduce__(self) -> tuple[Any, ...]:  # as EvalPoint's
        fields = (self.path, self.points, self.batch_size, self.converged_at, self.stop_line)
        return (RunCurve, (*fields, self.start_ms, self.stop_ms))


def fields_json(curve: RunCurve) -> str:
    """The curve's JSON as the audit's record writes it (html_report/record.py), its
    path left out: ``{"points":...}``. An audit worker writes it once, so that neither
    the audit nor its record writer holds a curve's objects (docs/audit.md, "Cold,
    cached, memory")."""
    import json

    fields = {
        "points": [[p.line, p.epoch, p.minutes, p.value] for p in curve.points],
        "batch_size": curve.batch_size,
        "converged_at": curve.converged_at,
        "stop_line": curve.stop_line,
        "start_ms": curve.start_ms,
        "stop_ms": curve.stop_ms,
    }
    return json.dumps(fields, separators=(",", ":"))


def from_fields(path: str, fields: dict[str, Any]) -> RunCurve:
    """The curve ``fields_json`` (or a record's curve entry) describes, at ``path``."""
    return RunCurve(
        path,
        tuple(EvalPoint(*p) for p in fields["points"]),
        fields["batch_size"],
        fields["converged_at"],
        fields["stop_line"],
        fields["start_ms"],
        fields["stop_ms"],
    )


def from_fields_json(path: str, text: str) -> RunCurve:
    import json

    return from_fields(path, json.loads(text))


def _number(value: Any) -> float | None:
    """A finite number, else None: a NaN, infinite or 400-digit batch size or value from
    a hostile log is no point on a chart (docs/security.md)."""
    from ..rules.schema import finite_number

    return finite_number(value)


# How the RCP rules count convergence (scoring data ``converged_at``) -> the metadata
# field that places each evaluation on the x axis, and its unit.
X_FIELDS = {
    "epoch_num": ("epoch_num", "epochs"),
    "train_samples": ("epoch_num", "samples"),
    "samples_count": ("samples_count", "samples"),
    "step_num": ("step_num", "steps"),
}


def x_axis(scoring: Any, benchmark: str) -> tuple[str, str]:
    """(metadata field, unit) that place a benchmark's evaluations."""
    converged_at = getattr(scoring, "converged_at", "epoch_num")
    field, unit = X_FIELDS.get(converged_at, ("epoch_num", "epochs"))
    return field, "samples" if benchmark == "bert" else unit


def _point(record: Record, start_ms: float | None, field: str) -> EvalPoint:
    value = record.value
    metadata = record.metadata if isinstance(record.metadata, dict) else {}
    epoch = _number(metadata.get(field))
    if isinstance(value, dict) and "value" in value and "epoch" in value:  # v0.5 style
        value, epoch = value["value"], _number(value["epoch"])
    metric = metadata.get("metric")
    if metric is not None and not isinstance(value, dict | list):  # one record per metric
        value = {str(metric): value}
    minutes = None
    if start_ms is not None:
        minutes = (float(record.timestamp_ms) - start_ms) / MS_PER_MINUTE
    return EvalPoint(record.line, epoch, minutes, value)


def _bench_scoring(ruleset: str, benchmark: str) -> Any:
    """The benchmark's scoring data; None without (epochs, no convergence point)."""
    from .scoring import known_scoring

    scoring = known_scoring(ruleset)
    return None if scoring is None else scoring.benchmarks.get(benchmark)


def curve_of(path: str, records: list[Record], benchmark: str, ruleset: str = "") -> RunCurve:
    """One log's evaluations before run_stop and its convergence point, from its records."""
    from .runs import QUALITY_KEYS, epochs_to_converge, evaluations, run_stop_status

    scoring = _bench_scoring(ruleset, benchmark)
    field, _ = x_axis(scoring, benchmark)
    start = next((r for r in records if r.key == "run_start"), None)
    stop_at = next((i for i, r in enumerate(records) if r.key == "run_stop"), len(records))
    before = records[:stop_at]
    start_ms = None if start is None else float(start.timestamp_ms)
    # The benchmark's quality record: eval_error for MLPerf HPC CosmoFlow and OC20
    keys = {*QUALITY_KEYS, getattr(scoring, "key", "eval_accuracy")}
    points = tuple(_point(r, start_ms, field) for r in before if r.key in keys)
    batch = next((_number(r.value) for r in records if r.key == "global_batch_size"), None)
    stop = records[stop_at] if stop_at < len(records) else None
    status = run_stop_status(stop)  # v0.5: in run_stop's value
    converged = None
    if scoring is not None and stop is not None:
        # A round whose logs state no status: success is the target met (docs/scores.md)
        succeeded = status == "success" or (
            status is None
            and scoring.status_from_target
            and any(scoring.reached(v) for _, v in evaluations(before, scoring))
        )
        converged = epochs_to_converge(before, scoring) if succeeded else None
    return RunCurve(
        path=path,
        points=points,
        batch_size=None if batch is None else int(batch),
        converged_at=converged,
        stop_line=stop.line if stop else 0,
        start_ms=start_ms,
        stop_ms=None if stop is None else float(stop.timestamp_ms),
    )
