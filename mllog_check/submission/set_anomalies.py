"""Anomalies seen across the runs of one result set (MLA015-MLA017).

They matter most for the LLM benchmarks, whose results hold few runs (3 for gpt3 and
llama31_405b): a run counted although its evaluation never reached the quality target;
runs of one result with different global batch sizes (the RCP check takes one); runs
whose first timestamp is far from the others' (a run from another campaign, or a clock
written in another unit).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..problems import Problem
from ..records import Record
from ..results.runs import run_stop_status
from . import codes, fingerprints

# Runs of one submission are taken within days; the corpus's widest honest spread is
# under a week (v5.1 Oracle flux1: 6.5 days), the next ones are 33 days and more.
APART_DAYS = 14.0
MS_PER_DAY = 86_400_000.0


@dataclass(frozen=True, slots=True)
class SetFacts:
    """What the detectors need of one log, read once while it is parsed."""

    path: str
    first_ms: float | None  # first record with a non-zero time_ms
    first_line: int
    batch: Any  # first global_batch_size value
    batch_line: int
    stop_line: int
    stop_status: str | None
    window: str = ""  # run_start-run_stop time_ms (fingerprints.window)
    curve: str = ""  # the evaluation curve's hash (fingerprints.curve_hash)
    body: str = ""  # the record sequence's hash (anomalies.body_hash)


def facts(path: str, records: Sequence[Record], body: str = "") -> SetFacts:
    first = next((r for r in records if _positive(r.timestamp_ms)), None)
    start = next((r for r in records if r.key == "run_start"), None)
    batch = next((r for r in records if r.key == "global_batch_size"), None)
    stop = next((r for r in records if r.key == "run_stop"), None)
    status = run_stop_status(stop)
    return SetFacts(
        path=path,
        first_ms=float(first.timestamp_ms) if first is not None else None,
        first_line=first.line if first is not None else 0,
        batch=batch.value if batch is not None else None,
        batch_line=batch.line if batch is not None else 0,
        stop_line=stop.line if stop is not None else 0,
        stop_status=status,
        window=fingerprints.window(
            start.timestamp_ms if start is not None else None,
            stop.timestamp_ms if stop is not None else None,
        ),
        curve=fingerprints.curve_hash(records),
        body=body,
    )


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def detect(logs: Sequence[SetFacts], converged: dict[str, bool] | None) -> Iterable[Problem]:
    """Each anomaly (its path the log's); ``converged`` (path -> the quality target was
    reached) is None when the round's target is not known: then nothing is claimed."""
    if converged is not None:
        yield from _target_not_reached(logs, converged)
    yield from _batch_differs(logs)
    yield from _apart(logs)


def _target_not_reached(logs: Sequence[SetFacts], converged: dict[str, bool]) -> Iterable[Problem]:
    for log in logs:
        if log.stop_status == "success" and converged.get(log.path) is False:
            msg = (
                "run_stop says success (the run is timed and counted) but no evaluation "
                "before it reaches the quality target"
            )
            yield codes.TARGET_NOT_REACHED.problem(log.path, msg, log.stop_line)


def _batch_differs(logs: Sequence[SetFacts]) -> Iterable[Problem]:
    values = Counter(repr(log.batch) for log in logs if log.batch is not None)
    if len(values) < 2:
        return
    usual, count = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    for log in logs:
        if log.batch is not None and repr(log.batch) != usual:
            msg = (
                f"global_batch_size {log.batch!r} where {count} of {len(logs)} runs log "
                f"{usual} (one result is one batch size for the RCP check)"
            )
            yield codes.BATCH_DIFFERS.problem(log.path, msg, log.batch_line)


def _apart(logs: Sequence[SetFacts]) -> Iterable[Problem]:
    starts = [log.first_ms for log in logs if log.first_ms is not None]
    if len(starts) < 2:
        return
    middle = statistics.median(starts)
    for log in logs:
        if log.first_ms is None:
            continue
        days = abs(log.first_ms - middle) / MS_PER_DAY
        if days > APART_DAYS:
            msg = (
                f"first timestamp {days:,.1f} days from the median of the result's "
                f"{len(starts)} runs (more than {APART_DAYS:g})"
            )
            yield codes.RUNS_APART.problem(log.path, msg, log.first_line)
