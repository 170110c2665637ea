"""Reference convergence points (RCP): is a closed submission converging too fast?

Method (training rules "Convergence and RCPs"; docs/scores.md): per reference batch
size, the olympic-trimmed mean and standard deviation of the reference runs' epochs
(BERT: samples) to converge, and the minimum acceptable submission mean from a
one-sided two-sample t-test (equal variances, p = 0.05). References allowing slower
convergence than the interpolation of their neighbours are pruned first. A submission's
olympic mean must reach the minimum of the reference at its batch size, interpolated
linearly between the two nearest ones.

This is what the v1.0-v2.0 official checkers did; mlperf-logging 4.x takes the standard
deviation over all reference runs and prunes on means (docs/differences.md).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from ..problems import Problem
from . import codes
from .runs import Run

ALPHA = 0.05
NOT_CONVERGED = 1e9  # a failed run's epochs: it sorts last and is dropped as the slowest
# Submission runs per benchmark the reference statistics assume (the rules' run counts).
SUBMISSION_RUNS = {"bert": 10, "dlrm": 5, "maskrcnn": 5, "resnet": 5, "rnnt": 10, "ssd": 5}
SUBMISSION_RUNS |= {"unet3d": 40, "minigo": 10}


@dataclass(frozen=True, slots=True)
class Reference:
    """Statistics of one reference batch size (or an interpolation between two)."""

    batch_size: float
    mean: float
    stdev: float
    minimum: float  # minimum acceptable submission mean
    between: tuple[float, float] | None = None  # batch sizes interpolated between


@dataclass(frozen=True, slots=True)
class RcpResult:
    verdict: str  # Pass, Fail, Interp. Fail, Missing, Insufficient convergence, Unusable
    message: str
    submission_mean: float | None = None
    reference: Reference | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "Pass"

    def problems(self, folder: str) -> list[Problem]:
        if self.passed:
            return []
        rule = {"Missing": codes.RCP_MISSING, "Fail": codes.RCP_FAIL}.get(self.verdict)
        if rule is None:
            rule = codes.RCP_FAIL if self.verdict == "Interp. Fail" else codes.RCP_UNUSABLE
        return [codes.problem(rule, folder, f"RCP {self.verdict}: {self.message}")]


@cache
def load_rcp(ruleset_folder: str) -> dict[str, Any]:
    """schemas/rcp/<training_X.Y.Z>.json (the project's copy of the reference data)."""
    resource = files("mllog_check.schemas").joinpath("rcp", f"{ruleset_folder}.json")
    data = json.loads(resource.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def minimum_mean(mean: float, stdev: float, n_ref: int, n_sub: int) -> float:
    """Smallest submission mean a one-sided equal-variance t-test at ALPHA still accepts.

    The submission is assumed to have the reference's spread; the test statistic is
    t = (m - mean) / (stdev * sqrt(1/n_ref + 1/n_sub)) with n_ref + n_sub - 2 degrees
    of freedom, and m is accepted while P(T <= t) > ALPHA.
    """
    if stdev == 0:
        return mean
    critical = critical_t(n_ref + n_sub - 2)  # negative
    return mean + critical * stdev * math.sqrt(1.0 / n_ref + 1.0 / n_sub)


@cache
def _t_table() -> dict[int, float]:
    resource = files("mllog_check.schemas").joinpath("rcp", "t_critical_0.05.json")
    data = json.loads(resource.read_text(encoding="utf-8"))
    assert data["alpha"] == ALPHA
    return {int(df): float(t) for df, t in data["critical_t"].items()}


def critical_t(df: int) -> float:
    """Student's t at ALPHA (lower tail): scipy's value, from the shipped cache when it
    holds this df (schemas/rcp/t_critical_0.05.json, checked against scipy by the tests),
    so that an audit's workers skip scipy's import; else scipy itself."""
    cached = _t_table().get(df)
    if cached is not None:
        return cached
    from scipy.special import stdtrit

    return float(stdtrit(df, ALPHA))


def reference_stats(converged_at: list[float], trim: int, n_sub: int, bs: float) -> Reference:
    ordered = sorted(converged_at)
    kept = ordered[trim : len(ordered) - trim]
    mean = statistics.fmean(kept)
    stdev = statistics.pstdev(kept)  # olympic-trimmed, population (ddof 0)
    return Reference(bs, mean, stdev, minimum_mean(mean, stdev, len(kept), n_sub))


def _interpolate(bs: float, low: Reference, high: Reference, runs: int) -> Reference:
    share = (bs - low.batch_size) / (high.batch_size - low.batch_size)
    mean = low.mean + share * (high.mean - low.mean)
    stdev = low.stdev + share * (high.stdev - low.stdev)
    # An interpolated point stands for 2 x runs reference runs, untrimmed (official checker).
    minimum = minimum_mean(mean, stdev, 2 * runs, runs - 2)
    return Reference(bs, mean, stdev, minimum, (low.batch_size, high.batch_size))


@cache
def references(ruleset_folder: str, benchmark: str, trim: int) -> tuple[Reference, ...]:
    """The pruned reference points of a benchmark, by batch size."""
    bench = load_rcp(ruleset_folder)["benchmarks"].get(benchmark)
    if bench is None:
        return ()
    runs = SUBMISSION_RUNS.get(benchmark, 5)
    points = sorted(
        (
            reference_stats(r["converged_at"], trim, runs - 2, r["batch_size"])
            for r in bench["references"]
        ),
        key=lambda r: r.batch_size,
    )
    return _prune(points, runs)


def _prune(points: list[Reference], runs: int) -> tuple[Reference, ...]:
    """Drop references that allow slower convergence than their neighbours' interpolation.

    As the round's official checker (v1.0 to v2.0): keep the point with the smallest
    minimum acceptable mean and larger batches; then walk once through the rest, removing
    a point whose minimum is above the interpolated minimum of its two neighbours.
    """
    fastest = min(points, key=lambda p: p.minimum)
    kept = [p for p in points if p.batch_size >= fastest.batch_size]
    i = 1
    while i < len(kept) - 1:
        line = _interpolate(kept[i].batch_size, kept[i - 1], kept[i + 1], runs)
        if kept[i].minimum > line.minimum:
            del kept[i]  # the next point moves into place i and is checked next
        else:
            i += 1
    return tuple(kept)


def check_rcp(ruleset_folder: str, benchmark: str, runs: list[Run], trim: int) -> RcpResult | None:
    """The RCP verdict for a closed result; None when the round has no RCP for it."""
    points = references(ruleset_folder, benchmark, trim)
    if not points:
        return None
    batches = {r.global_batch_size for r in runs}
    if len(batches) != 1 or None in batches:
        shown = ", ".join(sorted(str(b) for b in batches))
        return RcpResult(
            "Unusable", f"global_batch_size must be logged and equal in all runs: {shown}"
        )
    bs = float(next(iter(batches)) or 0)
    epochs = [NOT_CONVERGED if r.epochs_or_samples is None else r.epochs_or_samples for r in runs]
    failed = sum(1 for r in runs if r.epochs_or_samples is None)
    if failed > trim:
        return RcpResult(
            "Insufficient convergence", f"{failed} runs did not converge; at most {trim}"
        )
    ordered = sorted(epochs)
    mean = statistics.fmean(ordered[trim : len(ordered) - trim])
    unit = load_rcp(ruleset_folder)["benchmarks"][benchmark]["unit"]
    return _verdict(points, bs, mean, unit, len(runs))


def _verdict(
    points: tuple[Reference, ...], bs: float, mean: float, unit: str, runs: int
) -> RcpResult:
    exact = next((p for p in points if p.batch_size == bs), None)
    lower = [p for p in points if p.batch_size < bs]
    higher = [p for p in points if p.batch_size > bs]
    if exact is not None:
        ref, fail = exact, "Fail"
    elif lower and higher:
        ref, fail = _interpolate(bs, lower[-1], higher[0], runs), "Interp. Fail"
    elif lower:
        ref = lower[-1]
        why = (
            f"batch size {bs:g} is above every reference (largest {ref.batch_size:g}): submit RCPs"
        )
        return RcpResult("Missing", why, mean, None)
    else:
        ref, fail = points[0], "Missing"
    ok = mean >= ref.minimum
    return RcpResult("Pass" if ok else fail, _message(ok, bs, mean, ref, unit), mean, ref)


def _fmt(value: float, unit: str) -> str:
    return f"{value:,.0f}" if unit == "samples" else f"{value:,.2f}"


def _message(ok: bool, bs: float, mean: float, ref: Reference, unit: str) -> str:
    if ref.between is not None:
        where = f"interpolated between batch sizes {ref.between[0]:g} and {ref.between[1]:g}"
    elif ref.batch_size == bs:
        where = f"reference at batch size {bs:g}"
    else:
        where = f"batch size {bs:g} below every reference; smallest {ref.batch_size:g} used"
    relation = ">=" if ok else "<"
    return (
        f"olympic mean {_fmt(mean, unit)} {unit} {relation} minimum {_fmt(ref.minimum, unit)} "
        f"(reference mean {_fmt(ref.mean, unit)}, stdev {_fmt(ref.stdev, unit)}; {where})"
    )
