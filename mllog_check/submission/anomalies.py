"""Signs of hand-edited, duplicated or failed runs in one log (audit anomaly kinds).

Each detector reads the records of one log and returns the Problems its rule (an MLA
code of codes.py, documented in docs/audit.md) makes; the package check places them
(org, system, benchmark).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..problems import Problem
from ..records import Record
from ..results.runs import run_stop_status
from . import codes

# Keys whose time_ms measures the run (common.yaml's timing keys).
TIMED_KEYS = frozenset(
    {
        "init_start",
        "init_stop",
        "run_start",
        "run_stop",
        "epoch_start",
        "epoch_stop",
        "block_start",
        "block_stop",
        "eval_start",
        "eval_stop",
        "eval_accuracy",
    }
)
BACKWARDS_MS = 1000.0  # interleaved ranks jitter by milliseconds; a second is a sign


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the runs table and the result-set detectors need from one log."""

    run_start_ms: float | None
    run_stop_ms: float | None
    run_stop_status: str | None
    seed: Any
    seed_line: int
    body_hash: str


def first(records: Sequence[Record], key: str) -> Record | None:
    return next((r for r in records if r.key == key), None)


def run_facts(records: Sequence[Record]) -> RunFacts:
    start, stop, seed = (
        first(records, "run_start"),
        first(records, "run_stop"),
        first(records, "seed"),
    )
    status = run_stop_status(stop)
    return RunFacts(
        run_start_ms=start.timestamp_ms if start else None,
        run_stop_ms=stop.timestamp_ms if stop else None,
        run_stop_status=status,
        seed=seed.value if seed else None,
        seed_line=seed.line if seed else 0,
        body_hash=body_hash(records),
    )


def body_hash(records: Sequence[Record]) -> str:
    """sha1 of the record sequence without paths or positions ('' for an empty log)."""
    if not records:
        return ""
    body = [(r.key, r.value, r.timestamp_ms, r.event_type, r.metadata) for r in records]
    try:
        data = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # a value orjson cannot write (never seen in the corpus): slower path
        data = repr(body).encode()
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def detect(
    records: Sequence[Record], path: str | None = None, timed_by: str = "run_stop"
) -> list[Problem]:
    """Every per-log anomaly, in line order; ``path`` defaults to the records' own.
    ``timed_by``: how the benchmark's runs end (the round's scoring data: v0.6 MiniGo
    ends with its eval_result, never a run_stop)."""
    if path is None:
        path = records[0].path if records else ""
    found: list[Problem] = []
    for detector in (_after_stop, _time_zero, _time_ms_zero, _time_constant, _backwards):
        found.extend(detector(records, path))
    found.extend(_run_end(records, path, timed_by))
    return sorted(found, key=lambda p: (p.line, p.name))


# Records after run_stop that change a result: timing (a second run_start or run_stop),
# convergence (eval_accuracy) and the hyperparameters the rules check. What frameworks
# always log after run_stop (block_stop, current_lr, throughput, tracked_stats,
# run_final...) changes nothing and is not reported.
RESULT_KEYS = frozenset({"run_start", "run_stop", "eval_accuracy"})
# Rule keys that only mark time: after run_stop they are trailer, not a result.
_INTERVAL_KEYS = TIMED_KEYS - RESULT_KEYS | {"cache_clear", "save_model"}


@functools.cache
def hyperparameter_keys() -> frozenset[str]:
    """Keys any round's rules constrain, less the interval markers and the submission
    header (who and what, not how: the consistency checks cover it)."""
    from ..rules import available_rulesets, load_ruleset

    keys: set[str] = set()
    for name in available_rulesets():
        for section in load_ruleset(name).sections.values():
            keys.update(section.keys)
    header = {k for k in keys if k.startswith("submission_")}
    return frozenset(keys - _INTERVAL_KEYS - RESULT_KEYS - header)


def _after_stop(records: Sequence[Record], path: str) -> list[Problem]:
    """One finding per file, at the first record after run_stop that changes a result.

    Records at time_ms 0 (headers some submitters log; time-ms-zero reports them) and
    trailer keys are ignored.
    """
    stop = next((i for i, r in enumerate(records) if r.key == "run_stop"), None)
    if stop is None:
        return []
    hyper = hyperparameter_keys()
    after = [
        r
        for r in records[stop + 1 :]
        if r.timestamp_ms != 0 and (r.key in RESULT_KEYS or r.key in hyper)
    ]
    if not after:
        return []
    what = []
    for key in dict.fromkeys(r.key for r in after):  # first appearance order
        found = [r for r in after if r.key == key]
        kind = "hyperparameter " if key in hyper else "second " if key == "run_stop" else ""
        more = f" (+{len(found) - 1})" if len(found) > 1 else ""
        what.append(f"{kind}{key} at line {found[0].line}{more}")
    shown = ", ".join(what[:5]) + (", …" if len(what) > 5 else "")
    msg = f"after run_stop (line {records[stop].line}), records that change a result: {shown}"
    stop_ms = records[stop].timestamp_ms
    if all(r.timestamp_ms == stop_ms and r.key not in RESULT_KEYS for r in after):
        msg += " (all at the run_stop millisecond)"  # a habit (submission/impact.py)
    return [codes.LINES_AFTER_STOP.problem(path, msg, after[0].line)]


def _time_zero(records: Sequence[Record], path: str) -> list[Problem]:
    zero = [r for r in records if r.key in TIMED_KEYS and r.timestamp_ms == 0]
    if not zero:
        return []
    msg = f"{len(zero)} timed records with time_ms 0, first {zero[0].key}"
    return [codes.TIME_ZERO.problem(path, msg, zero[0].line)]


def _time_ms_zero(records: Sequence[Record], path: str) -> list[Problem]:
    """Other records at time_ms 0 (timed ones are time-zero): one row per file, naming
    the first and the last (a hand-appended line is usually the last)."""
    zero = [r for r in records if r.timestamp_ms == 0 and r.key not in TIMED_KEYS]
    if not zero:
        return []
    head, last = zero[0], zero[-1]
    where = f"{head.key} at line {head.line}"
    if len(zero) > 1:
        where = f"first {where}, last {last.key} at line {last.line}"
    msg = f"{len(zero)} records with time_ms 0: {where}"
    if all(_is_header(r.key) for r in zero):
        msg += " (all submission header)"  # a habit (submission/impact.py)
    return [codes.TIME_MS_ZERO.problem(path, msg, head.line)]


def _is_header(key: str) -> bool:
    return key.startswith("submission_")


def _time_constant(records: Sequence[Record], path: str) -> list[Problem]:
    timed = [r for r in records if r.key in TIMED_KEYS]
    start, stop = first(records, "run_start"), first(records, "run_stop")
    if len(timed) >= 3 and len({r.timestamp_ms for r in timed}) == 1:
        msg = f"all {len(timed)} timed records carry time_ms {_ms(timed[0].timestamp_ms)}"
        return [codes.TIME_CONSTANT.problem(path, msg, timed[0].line)]
    if start is not None and stop is not None and start.timestamp_ms == stop.timestamp_ms:
        msg = f"run_stop has the time_ms of run_start ({_ms(start.timestamp_ms)}): zero run time"
        return [codes.TIME_CONSTANT.problem(path, msg, stop.line)]
    return []


def _ms(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _backwards(records: Sequence[Record], path: str) -> list[Problem]:
    timed = [r for r in records if r.key in TIMED_KEYS and r.timestamp_ms != 0]
    jumps = [
        (a, b)
        for a, b in itertools.pairwise(timed)
        if b.timestamp_ms < a.timestamp_ms - BACKWARDS_MS
    ]
    if not jumps:
        return []
    a, b = max(jumps, key=lambda pair: pair[0].timestamp_ms - pair[1].timestamp_ms)
    worst = (a.timestamp_ms - b.timestamp_ms) / 1000.0
    first_jump = jumps[0][1]
    msg = (
        f"time goes backwards {len(jumps)} times among timed records "
        f"(worst {worst:.1f} s, line {b.line})"
    )
    start, stop = first(records, "run_start"), first(records, "run_stop")
    where = {_jump_place(pair, start, stop) for pair in jumps}
    if "training" not in where:  # a habit (submission/impact.py): the timed run stands
        msg += f"; the training timeline runs forward ({', '.join(sorted(where))})"
    return [codes.TIME_BACKWARDS.problem(path, msg, first_jump.line)]


EVAL_KEYS = frozenset({"eval_start", "eval_stop", "eval_accuracy"})


def _jump_place(pair: tuple[Record, Record], start: Record | None, stop: Record | None) -> str:
    """Where a step back in time happens: at evaluation records (offline evaluation, or
    an evaluation stamped at its start), before run_start, after run_stop, or inside the
    training timeline (the only place that moves the time to train)."""
    before, after = pair
    if start is not None and after.line <= start.line:
        return "before run_start"
    if stop is not None and after.line > stop.line:
        return "after run_stop"
    if before.key in EVAL_KEYS or after.key in EVAL_KEYS:
        return "at evaluation records"
    return "training"


def _run_end(records: Sequence[Record], path: str, timed_by: str = "run_stop") -> list[Problem]:
    start, stop = first(records, "run_start"), first(records, "run_stop")
    if timed_by == "eval_result" and stop is None and first(records, "eval_result"):
        return []  # ended by its eval_result (the score says when it times nothing)
    if start is not None and stop is None:
        msg = "run_start without run_stop: the log is cut off"
        return [codes.ABORTED_RUN.problem(path, msg, start.line)]
    if stop is None:
        return []
    status = run_stop_status(stop)  # v0.5: in run_stop's value (docs/scores.md)
    if status != "success":
        msg = f"run_stop status is {status!r}, not 'success'"
        return [codes.NOT_CONVERGED.problem(path, msg, stop.line)]
    return []


def repeated_seeds(runs: list[tuple[str, Any, int]]) -> list[Problem]:
    """(path, seed, line) of the runs of one result set -> an anomaly on every repeat."""
    seen: dict[str, str] = {}
    out = []
    for path, seed, line in runs:
        if seed is None:
            continue
        key = repr(seed)
        if key in seen:
            msg = f"seed {seed!r} also logged by {seen[key]}"
            out.append(codes.REPEATED_SEED.problem(path, msg, line))
        else:
            seen[key] = path
    return out
