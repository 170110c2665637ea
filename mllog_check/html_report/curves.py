"""Convergence curves: every eval_accuracy of a log, with where the run converged.

The audit's workers take them from the records they parsed (results/curves.py), for the
audit's record and for a report of orgs; a report reads a log here only for a run no
worker checked (result folders), in worker processes for many logs. Only
what a chart needs leaves a worker: (line, epoch, minutes since run_start, value) per
evaluation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from ..parsing import parse_file
from ..results.curves import EvalPoint, RunCurve, curve_of, x_axis

__all__ = ["EvalPoint", "RunCurve", "read_curve", "read_curves", "read_many", "x_axis"]


def read_curve(path: str, benchmark: str, ruleset: str = "") -> RunCurve:
    """One log's evaluations before run_stop and its convergence point."""
    return curve_of(path, parse_file(path).records, benchmark, ruleset)


def read_many(items: Sequence[tuple[str, str, str]]) -> list[RunCurve]:
    """(path, benchmark, ruleset) -> curves; a log that cannot be read has none."""
    out = []
    for path, bench, ruleset in items:
        try:
            out.append(read_curve(path, bench, ruleset))
        except OSError:  # a log gone since it was checked: the checks said what they read
            out.append(RunCurve(path, (), None, None, 0))
    return out


def read_curves(
    items: Sequence[tuple[str, str, str]], jobs: int | None = None
) -> dict[str, RunCurve]:
    """(path, benchmark, ruleset) -> curves by path; in ``jobs`` worker processes."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(items) // 16 or 1))
    if workers == 1:
        return {c.path: c for c in read_many(items)}
    chunks = [list(items[i::workers]) for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(read_many, chunks))
    return {c.path: c for chunk in results for c in chunk}
