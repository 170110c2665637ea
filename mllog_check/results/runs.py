"""One result file -> one Run: time to train, status, convergence, epochs, seeds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..records import ParseResult, Record
from .scoring import BenchmarkScoring, finite_number

if TYPE_CHECKING:
    from ..records import Logged

MS_PER_MINUTE = 60_000.0
QUALITY_KEYS = ("eval_accuracy", "aggregated_eval_accuracy")


@dataclass(frozen=True, slots=True)
class Seed:
    value: Any
    line: int


@dataclass(frozen=True, slots=True)
class Run:
    """A result file as the score and RCP rules see it."""

    path: str
    org: str
    system: str
    benchmark: str
    division: str | None
    minutes: float | None  # (first run_stop - first run_start) / 60000; None if either is missing
    run_stop_status: str | None  # run_stop metadata.status (not the submission's status)
    converged: bool  # status success and the quality target reached
    compliant: bool  # passed the compliance check (or the fallback criterion, see note)
    epochs_or_samples: float | None  # as the RCP rules count them; None unless status success
    global_batch_size: int | None
    seeds: tuple[Any, ...]
    platform: str | None = None
    compliance_note: str = ""  # why compliance was approximated, when it was
    seed_records: tuple[Seed, ...] = ()
    energy_j: float | None = None  # from power/result_N logs (docs/power.md)
    avg_power_w: float | None = None  # energy_j over the run's time to train, in W
    start_ms: float | None = None  # first run_start time_ms
    stop_ms: float | None = None  # first run_stop time_ms
    # Not converged and some quality value could not be read (scoring.read_quality): the
    # first such record, "line N: <value>"; then the target is not said to be missed.
    unread_quality: str = ""
    note: str = ""  # why a run counts that may look as if it should not (score --runs)
    # What timed it: "run_stop" (run_start to run_stop) or "eval_result" (v0.6 MiniGo:
    # that record's timestamp; scoring.BenchmarkScoring.timed_by)
    timed_by: str = "run_stop"
    # Across rounds (results/columns.py): the round, its publication date, the
    # benchmark's model in it, and whether the run is dated before the previous round's
    # results were published (re-published from an earlier round).
    round: str | None = None
    published: str | None = None
    benchmark_model: str | None = None
    republished: bool = False
    # run_stop logs no status in a round whose logs state none (scoring unlogged_status):
    # whether an evaluation before it met the target, which stands for the status; None
    # when the log states a status or the round does not read it so.
    reached_for_status: bool | None = None

    @property
    def succeeded(self) -> bool:
        """Ended with success: run_stop says so, or (a round whose logs state no status)
        an evaluation before it met the target (docs/scores.md), or (v0.6 MiniGo) its
        eval_result timed it."""
        if self.timed_by == "eval_result":
            return self.minutes is not None
        return self.run_stop_status == "success" or self.reached_for_status is True

    @property
    def counted(self) -> bool:
        """Counts toward the score: compliant and timed (the official summarizer's test)."""
        return self.compliant and self.minutes is not None


def _first(records: list[Record], key: str) -> Record | None:
    return next((r for r in records if r.key == key), None)


def _value(records: list[Record], key: str) -> Any:
    record = _first(records, key)
    return None if record is None else record.value


def run_stop_status(stop: Record | None) -> str | None:
    """run_stop's metadata status; v0.5 logs say it in the value instead
    ({"success": true}, or "true" as text: docs/scores.md): "success" or "abort"."""
    if stop is None:
        return None
    metadata = stop.metadata if isinstance(stop.metadata, dict) else {}
    status = metadata.get("status")
    if status is None and isinstance(stop.value, dict) and "success" in stop.value:
        return "success" if stop.value["success"] in (True, "true") else "abort"
    return None if status is None else str(status)


def _before_stop(records: list[Record], stop: Record | None) -> list[Record]:
    if stop is None:
        return records
    end = next(i for i, r in enumerate(records) if r is stop)
    return records[:end]


_number = finite_number


def duration(start: Record | None, stop: Record | None) -> tuple[float | None, str]:
    """Minutes from run_start to run_stop, or None and why (empty when one is missing):
    times that are not finite, or a run_stop before its run_start, time nothing."""
    if start is None or stop is None:
        return None, ""
    begin, end = _number(start.timestamp_ms), _number(stop.timestamp_ms)
    if begin is None or end is None:
        return None, "run_start or run_stop time is not a finite number"
    if end < begin:
        return None, f"run_stop (line {stop.line}) is before run_start (line {start.line})"
    return (end - begin) / MS_PER_MINUTE, ""


NO_MODEL_REACHED = "no model reached the target"


def eval_result_time(record: Record | None) -> tuple[float | None, str]:
    """Minutes to train from an eval_result record (v0.6 MiniGo: its metadata
    ``timestamp``, seconds from run_start to the first model reaching the target), or
    None and why: 0 says no model reached it (the 0.6.0 rules), anything else that is not
    a positive finite number times nothing."""
    if record is None:
        return None, "no eval_result"
    metadata = record.metadata if isinstance(record.metadata, dict) else {}
    seconds = _number(metadata.get("timestamp"))
    if seconds is None or seconds < 0:
        return None, f"eval_result (line {record.line}) timestamp is not a finite time"
    if seconds == 0:
        return None, f"eval_result (line {record.line}) timestamp is 0: {NO_MODEL_REACHED}"
    return seconds / 60.0, ""


def epochs_to_converge(
    records: list[Record], scoring: BenchmarkScoring | None = None
) -> float | None:
    """What the RCP rules count for a run that stopped with success (records before run_stop).

    By the benchmark's ``converged_at`` (schemas/scoring/): the last evaluation's
    metadata ``epoch_num`` rounded to 3 decimals (default), ``samples_count`` or
    ``step_num``; Stable Diffusion (``first_reaching``) the first evaluation step
    where every metric meets the target.

    ``train_samples`` (v0.7-v2.0 BERT): a ``train_samples`` logged after the last
    evaluation is the count at convergence (what --rcp_bert_train_samples reads; NVIDIA
    logs epoch_num 1 throughout). One logged before it (Google logs the planned total at
    run_start) is not, and the eval cadence's epoch_num (samples) is used instead.
    """
    field = scoring.converged_at if scoring is not None else "epoch_num"
    if scoring is not None and scoring.split_metrics:
        reached = [s for s, v in evaluations(records, scoring) if scoring.reached(v)]
        numbers = [n for n in (_number(s) for s in reached) if n is not None]
        return min(numbers) if numbers else None
    key = scoring.key if scoring is not None else "eval_accuracy"
    last_eval = max((i for i, r in enumerate(records) if r.key == key), default=-1)
    if field == "train_samples":
        after = [_number(r.value) for r in records[last_eval + 1 :] if r.key == "train_samples"]
        after = [s for s in after if s is not None]
        if after:
            return after[-1]
        field = "epoch_num"
    if last_eval < 0:
        return None
    metadata = records[last_eval].metadata
    count = _number(metadata.get(field)) if isinstance(metadata, dict) else None
    if count is None:
        return None
    return round(count, 3) if field == "epoch_num" else count


def evaluations(records: list[Record], scoring: BenchmarkScoring) -> list[tuple[Any, Any]]:
    """(step, value) of each evaluation, in log order. With ``split_metrics`` the records
    of one step (metadata ``converged_at`` field), one per metadata ``metric``, are joined
    into one dict value; an aggregated_eval_accuracy dict value counts as it is."""
    if not scoring.split_metrics:
        return [(None, r.value) for r in records if r.key == scoring.key]
    joined: dict[Any, dict[str, Logged]] = {}  # step -> metric -> value
    for record in records:
        if record.key not in QUALITY_KEYS:
            continue
        metadata = record.metadata if isinstance(record.metadata, dict) else {}
        value = record.value
        if isinstance(value, dict):
            step = value.get(scoring.converged_at, metadata.get(scoring.converged_at))
            items = {k: v for k, v in value.items() if isinstance(k, str)}
        elif isinstance(metadata.get("metric"), str):
            step, items = metadata.get(scoring.converged_at), {metadata["metric"]: value}
        else:
            continue
        if isinstance(step, list | dict):
            continue  # not a step number: cannot join on it
        joined.setdefault(step, {}).update(items)
    return list(joined.items())


def _late_target_note(
    records: list[Record], before: list[Record], scoring: BenchmarkScoring | None
) -> str:
    """Why a successful run whose target is reached only after run_stop is counted
    (MLC111): the official checker judges the target over the whole log."""
    if scoring is None:
        return ""
    if any(scoring.reached(v) for _, v in evaluations(before, scoring)):
        return ""
    after = records[len(before) :]
    if not any(scoring.reached(v) for _, v in evaluations(after, scoring)):
        return ""
    return (
        "counted: run_stop says success and the official tools judge the quality target "
        "over the whole log, where an evaluation after run_stop reaches it (MLC111)"
    )


def build_run(
    result: ParseResult,
    org: str,
    system: str,
    benchmark: str,
    scoring: BenchmarkScoring | None,
    compliant: bool | None,
    compliance_note: str = "",
) -> Run:
    """A Run from parsed records; ``compliant=None`` means: approximate it (see note)."""
    records = result.records
    start, stop = _first(records, "run_start"), _first(records, "run_stop")
    minutes, _ = duration(start, stop)
    status = run_stop_status(stop)
    succeeded, timed_by = status == "success", "run_stop"
    evaluated = _first(records, "eval_result")
    if scoring is not None and scoring.timed_by == "eval_result" and evaluated is not None:
        # v0.6 MiniGo: no run_stop; a positive eval_result timestamp is its success.
        minutes, _ = eval_result_time(evaluated)
        succeeded, timed_by = minutes is not None, "eval_result"
    before = _before_stop(records, stop)
    reached = scoring is not None and any(
        scoring.reached(value) for _, value in evaluations(before, scoring)
    )
    # A round whose logs state no status (v0.5 NVIDIA, HPC v0.7 CosmoFlow): a bare
    # run_stop ended with success when an evaluation before it met the target.
    for_status = None
    unlogged = status is None and stop is not None and timed_by == "run_stop"
    if unlogged and scoring is not None and scoring.status_from_target:
        for_status = reached
        succeeded = reached
    converged = succeeded and reached
    unread = "" if reached or scoring is None else unread_quality(before, scoring)
    note = _late_target_note(records, before, scoring) if status == "success" else ""
    if for_status:
        note = (
            "counted: run_stop states no status (the round's logs state none) and an "
            "evaluation before it meets the quality target"
        )
    if compliant is None:
        # Fallback criterion until the round's compliance ruleset exists: a clean parse
        # and a converged run (the quality target is the part of compliance that decides).
        compliant = converged and result.error_count == 0
    # A null seed is no seed (v0.7 NVIDIA and Inspur log `"seed": null`).
    seeds = tuple(Seed(r.value, r.line) for r in records if r.key == "seed" and r.value is not None)
    batch = _number(_value(records, "global_batch_size"))
    division = _value(records, "submission_division")
    platform = _value(records, "submission_platform")
    return Run(
        path=result.path,
        org=org,
        system=system,
        benchmark=benchmark,
        division=None if division is None else str(division).lower(),
        minutes=minutes,
        run_stop_status=status,
        converged=converged,
        compliant=compliant,
        epochs_or_samples=(epochs_to_converge(before, scoring) if succeeded else None),
        note=note,
        global_batch_size=None if batch is None else int(batch),  # finite (_number)
        seeds=tuple(s.value for s in seeds),
        platform=None if platform is None else str(platform),
        compliance_note=compliance_note,
        seed_records=seeds,
        start_ms=None if start is None else _number(start.timestamp_ms),
        stop_ms=None if stop is None else _number(stop.timestamp_ms),
        unread_quality=unread,
        timed_by=timed_by,
        reached_for_status=for_status,
    )


def unread_quality(records: list[Record], scoring: BenchmarkScoring) -> str:
    """The first quality record whose value cannot be read, as "line N: <value>"; ''
    when every value reads (split metrics are joined first: read as joined)."""
    if scoring.split_metrics:
        joined = evaluations(records, scoring)
        bad = next((v for _, v in joined if scoring.reached(v) is None), None)
        return "" if bad is None else f"{_shown(bad)}"
    for record in records:
        if record.key == scoring.key and scoring.reached(record.value) is None:
            return f"line {record.line}: {_shown(record.value)}"
    return ""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
