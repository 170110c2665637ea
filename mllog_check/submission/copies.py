"""Copies of one run inside one result set (MLA020), and the score without them.

A result set whose runs include the same run twice (the same record sequence, or the
same timed window to the millisecond: ``fingerprints``) has a score that counts that
run twice. The anomaly names both files and the lines that differ, and shows the
published score beside the score recomputed without the copy: an olympic mean, or for
an MLPerf HPC weak-scaling result its time to train all (docs/audit.md).

An evaluation curve alone is no copy: runs with their own windows that log the same
curve trained deterministically (or their seed was not applied), each a run; that is
its own finding (MLA055, info). Weak-scaling models are launched together and may
share a window: there only the same records make a copy.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..problems import Problem
from . import codes, fingerprints
from .set_anomalies import SetFacts

if TYPE_CHECKING:  # audit_rows calls this module
    from .audit_rows import AuditScore

# What makes two runs one, in the order a message names it; the curve is named beside
# them but makes no copy (module doc).
_SAME = (
    ("body", "the same records"),
    ("window", "the same run_start/run_stop time_ms"),
    ("curve", "the same evaluation curve"),
)
_PROOF = {"body", "window"}


def copies_of(logs: Sequence[SetFacts], weak: bool = False) -> dict[str, tuple[str, list[str]]]:
    """path of a copy -> (path of the run it copies, what they share); in path order,
    the first of each group is the run, the others its copies. ``weak``: the models of
    a weak-scaling result, where only the same records make a copy."""
    proof = {"body"} if weak else _PROOF
    out: dict[str, tuple[str, list[str]]] = {}
    ordered = sorted(logs, key=lambda log: log.path)
    for i, log in enumerate(ordered):
        for earlier in ordered[:i]:
            if earlier.path in out:  # a copy is compared through its original
                continue
            same = [a for a, _ in _SAME if getattr(log, a) and _eq(log, earlier, a)]
            if proof & set(same):
                out[log.path] = (earlier.path, [why for a, why in _SAME if a in same])
                break
    return out


def same_curves(logs: Sequence[SetFacts], copies: Container[str]) -> dict[str, str]:
    """path -> the earlier run (path order) whose evaluation curve it logs, for runs that
    are no copy: each its own run, trained alike."""
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for log in sorted(logs, key=lambda log: log.path):
        if not log.curve or log.path in copies:
            continue
        earlier = first.setdefault(log.curve, log.path)
        if earlier != log.path:
            out[log.path] = earlier
    return out


def _eq(a: SetFacts, b: SetFacts, attr: str) -> bool:
    return bool(getattr(a, attr) == getattr(b, attr))


def recompute(
    runs: Sequence[Any], copies: set[str], scoring: Any, factor: float
) -> tuple[float | None, str]:
    """The score without the copies (the round's olympic mean and run count) and a note."""
    from ..results.scores import olympic_mean

    kept = [r for r in runs if str(r.path) not in copies]
    times = [r.minutes for r in kept if r.counted and r.minutes is not None]
    failed = len(kept) - len(times)
    notes = []
    if scoring is not None:
        bench, exact = scoring[0], scoring[1]
        if (exact and len(kept) != bench.runs) or len(kept) < bench.runs:
            rule = "exactly" if exact else "at least"
            notes.append(f"{len(kept)} runs left where the round requires {rule} {bench.runs}")
        drop = bench.drop
    else:
        drop = 1
    if failed > drop:
        notes.append(f"{failed} failed runs left, at most {drop}")
        return None, "; ".join(notes)
    mean = olympic_mean(times, drop, failed)
    return (None if mean is None else mean * factor), "; ".join(notes)


def recompute_weak(runs: Sequence[Any], copies: set[str], scoring: Any) -> tuple[float | None, str]:
    """A weak-scaling result without the copies: the time to train all of the models
    left, if they are still the benchmark's run count (results.weak, docs/hpc.md)."""
    from ..results.weak import time_to_train_all

    kept = [r for r in runs if str(r.path) not in copies and r.counted]
    required = scoring[0].runs if scoring is not None else 0
    if len(kept) < required:
        return None, f"{len(kept)} models left where the benchmark needs at least {required}"
    return time_to_train_all(kept), f"time to train all of {len(kept)} models"


def detect(
    logs: Sequence[SetFacts],
    runs: Sequence[Any],
    score: AuditScore | None,
    scoring: Any,
    weak: bool = False,
) -> list[Problem]:
    """One anomaly per copy, at the copy: both files, the lines that differ, both scores;
    one finding (info) per run that logs an earlier run's curve but is no copy.

    ``scoring``: (the benchmark's scoring, run count exact) of the round, or None;
    ``weak``: an MLPerf HPC weak-scaling result (its models, its time to train all).
    """
    found = copies_of(logs, weak)
    out = _same_curves(logs, found)
    if not found:
        return out
    published = None if score is None else score.get("minutes")
    if weak:
        without, note = recompute_weak(runs, set(found), scoring)
    else:
        factor = float((score.get("scaling_factor") if score else None) or 1.0)
        without, note = recompute(runs, set(found), scoring, factor)
    if score is not None:
        score["minutes_without_copies"] = without
        score["copies"] = len(found)
    scores = f"score {_minutes(published)}; without the copies {_minutes(without)}"
    if note:
        scores += f" ({note})"
    for copy, (original, same) in sorted(found.items()):
        diff = fingerprints.differing_lines(Path(original), Path(copy))
        msg = (
            f"a copy of {original} ({', '.join(same)}; {diff}): counted twice in the "
            f"result's {scores}"
        )
        out.append(codes.DUPLICATE_COUNTED.problem(copy, msg))
    return out


def _same_curves(logs: Sequence[SetFacts], copies: Container[str]) -> list[Problem]:
    windows = {log.path: log.window for log in logs}
    out = []
    for path, earlier in sorted(same_curves(logs, copies).items()):
        apart = (
            "its own run_start/run_stop" if windows[path] != windows[earlier] else "the same window"
        )
        msg = (
            f"the same evaluation curve as {earlier}, with {apart} time_ms: each its own "
            "run, trained deterministically or with a seed not applied; not a copy"
        )
        out.append(codes.SAME_EVAL_CURVE.problem(path, msg))
    return out


def _minutes(value: float | None) -> str:
    return "invalid" if value is None else f"{value:.2f} min"
