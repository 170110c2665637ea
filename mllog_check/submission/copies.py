"""Copies of one run inside one result set (MLA020), and the score without them.

A result set whose runs include the same run twice (the same record sequence, timed
window or evaluation curve: ``fingerprints``) has an olympic mean that counts that run
twice. The anomaly names both files and the lines that differ, and shows the published
score beside the score recomputed without the copy (docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..problems import Problem
from . import codes, fingerprints
from .set_anomalies import SetFacts

# What makes two runs one, in the order a message names it.
_SAME = (
    ("body", "the same records"),
    ("window", "the same run_start/run_stop time_ms"),
    ("curve", "the same evaluation curve"),
)


def copies_of(logs: Sequence[SetFacts]) -> dict[str, tuple[str, list[str]]]:
    """path of a copy -> (path of the run it copies, what they share); in path order,
    the first of each group is the run, the others its copies."""
    out: dict[str, tuple[str, list[str]]] = {}
    ordered = sorted(logs, key=lambda log: log.path)
    for i, log in enumerate(ordered):
        for earlier in ordered[:i]:
            if earlier.path in out:  # a copy is compared through its original
                continue
            same = [why for attr, why in _SAME if getattr(log, attr) and _eq(log, earlier, attr)]
            if same:
                out[log.path] = (earlier.path, same)
                break
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


def detect(
    logs: Sequence[SetFacts],
    runs: Sequence[Any],
    score: dict[str, Any] | None,
    scoring: Any,
) -> list[Problem]:
    """One anomaly per copy, at the copy: both files, the lines that differ, both scores.

    ``scoring``: (the benchmark's scoring, run count exact) of the round, or None.
    """
    found = copies_of(logs)
    if not found:
        return []
    published = None if score is None else score.get("minutes")
    factor = float((score or {}).get("scaling_factor") or 1.0)
    without, note = recompute(runs, set(found), scoring, factor)
    if score is not None:
        score["minutes_without_copies"] = without
        score["copies"] = len(found)
    scores = f"score {_minutes(published)}; without the copies {_minutes(without)}"
    if note:
        scores += f" ({note})"
    out = []
    for copy, (original, same) in sorted(found.items()):
        diff = fingerprints.differing_lines(Path(original), Path(copy))
        msg = (
            f"a copy of {original} ({', '.join(same)}; {diff}): counted twice in the "
            f"result's {scores}"
        )
        out.append(codes.DUPLICATE_COUNTED.problem(copy, msg))
    return out


def _minutes(value: float | None) -> str:
    return "invalid" if value is None else f"{value:.2f} min"
