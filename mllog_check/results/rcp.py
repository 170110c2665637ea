"""Reference convergence points (RCP): is a closed submission converging too fast?

Method (training rules "Convergence and RCPs"; docs/scores.md): per reference batch
size, the olympic-trimmed mean and standard deviation of the reference runs' epochs
(BERT: samples) to converge, and the minimum acceptable submission mean from a
one-sided two-sample t-test (equal variances, p = 0.05). References allowing slower
convergence than the interpolation of their neighbours are pruned first. A submission's
olympic mean must reach the minimum of the reference at its batch size, interpolated
linearly between the two nearest ones.

This is what the v1.0-v2.0 official checkers did (method "trimmed"). From v2.1 the
official tools (method "normalized") take the standard deviation over all reference
runs, prune on means, and a passing result faster than the reference mean has its
score normalized by reference mean / submission mean (docs/scores.md).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..prepared import schemas_dir
from ..problems import Problem
from . import codes
from .runs import Run

if TYPE_CHECKING:
    from ..datafiles import Document

ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Method:
    """How a round's official tools computed the reference statistics."""

    stdev_of_all_runs: bool  # False: of the olympic-trimmed runs (v1.0-v2.0)
    prune_on_mean: bool  # False: on the minimum acceptable mean (v1.0-v2.0)
    normalize: bool  # scores of results faster than the reference mean are normalized


METHODS = {
    "trimmed": Method(stdev_of_all_runs=False, prune_on_mean=False, normalize=False),
    "normalized": Method(stdev_of_all_runs=True, prune_on_mean=True, normalize=True),
}
NOT_EVALUATED = "Not evaluated"


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
    verdict: str  # Pass, Fail, Interp. Fail, Missing, Insufficient convergence, Unusable,
    # Not evaluated
    message: str
    submission_mean: float | None = None
    reference: Reference | None = None
    # Reference mean / submission mean when the result converged faster than the
    # reference mean (1.0 otherwise); None when the round does not normalize or no
    # reference was compared.
    normalization: float | None = None
    # Near the bound only: the chance that N runs converging like these pass again
    # (rcp_confidence.py); None farther from it or without a reference.
    pass_probability: float | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "Pass"

    def problems(self, folder: str) -> list[Problem]:
        if self.passed:
            return []
        if self.verdict == NOT_EVALUATED:
            message = f"RCP not evaluated: {self.message}"
            return [codes.RCP_NOT_EVALUATED.problem(folder, message)]
        rule = {"Missing": codes.RCP_MISSING, "Fail": codes.RCP_FAIL}.get(self.verdict)
        if rule is None:
            rule = codes.RCP_FAIL if self.verdict == "Interp. Fail" else codes.RCP_UNUSABLE
        return [rule.problem(folder, f"RCP {self.verdict}: {self.message}")]


@cache
def load_rcp(ruleset_folder: str) -> Document:
    """A round's reference data: the path the round registry names (schemas/rcp/
    training_X.Y.Z.json, the project's copy), or a name in schemas/rcp/. A file that
    ``extends`` another round's states only its changes (``benchmarks`` replaced whole,
    ``remove`` drops retired ones; mllog_check.datafiles). DataFileError when a file is
    broken."""
    if ruleset_folder.endswith(".json"):
        return _resolved(Path(ruleset_folder), ())
    return _resolved(schemas_dir() / "rcp" / f"{ruleset_folder}.json", ())


def _resolved(path: Path, seen: tuple[Path, ...]) -> Document:
    from ..datafiles import EXTENDS, DataFileError, load_json, merge_named, validate
    from ..rounds import RoundError, parse_round

    data = load_json(path)
    validate(data, schemas_dir() / "rcp" / "rcp.schema.json", path)
    parent = data.pop(EXTENDS, None)
    if parent is None:
        return data
    try:
        parent_path = parse_round(str(parent)).files.get("rcp")
    except RoundError as err:
        raise DataFileError(f"{path}: extends: {err}") from None
    if parent_path is None or parent_path in (*seen, path):
        raise DataFileError(f"{path}: extends {parent!r}, which has no RCP data or loops back")
    base = _resolved(parent_path, (*seen, path))
    merged = {**base, **{k: v for k, v in data.items() if k not in ("benchmarks", "remove")}}
    merged["benchmarks"] = merge_named(
        dict(base["benchmarks"]), data.get("benchmarks"), data.get("remove"), str(path)
    )
    return merged


def coverage(version: str) -> list[str]:
    """What a round's RCP data and the round registry disagree on: a benchmark of the
    round with no reference data (the RCP check could not run), or reference data for a
    benchmark the round does not have. Empty for a round without RCP data."""
    from ..rounds import parse_round

    rnd = parse_round(version)
    path = rnd.path("rcp")
    if path is None:
        return []
    have = set(load_rcp(str(path))["benchmarks"])
    wanted = {b.name for b in (rnd.benchmarks or {}).values() if b.rcp}
    out = [f"round {rnd.version}: no RCP data for {name}" for name in sorted(wanted - have)]
    out += [f"round {rnd.version}: RCP data for {name}, not a benchmark of the round"
            for name in sorted(have - wanted)]  # fmt: skip
    return out


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
    data = json.loads((schemas_dir() / "rcp" / "t_critical_0.05.json").read_text(encoding="utf-8"))
    assert data["alpha"] == ALPHA
    return {int(df): float(t) for df, t in data["critical_t"].items()}


def critical_t(df: int) -> float:
    """Student's t at ALPHA (lower tail): scipy's value from the shipped cache for df up
    to 200 (schemas/rcp/t_critical_0.05.json, checked against scipy by the tests); beyond
    it the Cornish-Fisher expansion of the t quantile around the normal one (Abramowitz
    and Stegun 26.7.5), within 1e-9 of scipy there (tested). No scipy import: the core
    install has none."""
    cached = _t_table().get(df)
    if cached is not None:
        return cached
    return _t_expansion(df, ALPHA)


def _t_expansion(df: int, alpha: float) -> float:
    from statistics import NormalDist

    x = NormalDist().inv_cdf(alpha)
    g1 = (x**3 + x) / 4
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
    g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
    g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
    return x + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def reference_stats(
    converged_at: list[float], trim: int, n_sub: int, bs: float, method: Method = METHODS["trimmed"]
) -> Reference:
    ordered = sorted(converged_at)
    kept = ordered[trim : len(ordered) - trim] or ordered  # a too-short reference: untrimmed
    mean = statistics.fmean(kept)
    # population stdev (ddof 0) of the trimmed runs (v1.0-v2.0) or of all runs (v2.1+)
    stdev = statistics.pstdev(ordered if method.stdev_of_all_runs else kept)
    return Reference(bs, mean, stdev, minimum_mean(mean, stdev, len(kept), n_sub))


def _interpolate(bs: float, low: Reference, high: Reference, runs: int) -> Reference:
    share = (bs - low.batch_size) / (high.batch_size - low.batch_size)
    mean = low.mean + share * (high.mean - low.mean)
    stdev = low.stdev + share * (high.stdev - low.stdev)
    # An interpolated point stands for 2 x runs reference runs, untrimmed (official checker).
    minimum = minimum_mean(mean, stdev, 2 * runs, runs - 2)
    return Reference(bs, mean, stdev, minimum, (low.batch_size, high.batch_size))


@cache
def references(
    ruleset_folder: str, benchmark: str, trim: int, runs: int, method: str = "trimmed"
) -> tuple[Reference, ...]:
    """The pruned reference points of a benchmark, by batch size. ``runs`` is the round's
    required run count, which the reference statistics assume for the submission."""
    bench = load_rcp(ruleset_folder)["benchmarks"].get(benchmark)
    if bench is None or not bench["references"]:
        return ()
    how = METHODS[method]
    points = sorted(
        (
            reference_stats(r["converged_at"], trim, runs - 2, r["batch_size"], how)
            for r in bench["references"]
        ),
        key=lambda r: r.batch_size,
    )
    return _prune(points, runs, how)


def _prune(points: list[Reference], runs: int, method: Method) -> tuple[Reference, ...]:
    """Drop references that allow slower convergence than their neighbours' interpolation.

    As the round's official checker: keep the point with the smallest minimum acceptable
    mean (from v2.1: the smallest mean) and larger batches; then walk once through the
    rest, removing a point whose minimum (mean) is above the interpolation of its two
    neighbours'.
    """

    def speed(point: Reference) -> float:
        return point.mean if method.prune_on_mean else point.minimum

    fastest = min(points, key=speed)
    kept = [p for p in points if p.batch_size >= fastest.batch_size]
    i = 1
    while i < len(kept) - 1:
        line = _interpolate(kept[i].batch_size, kept[i - 1], kept[i + 1], runs)
        if speed(kept[i]) > speed(line):
            del kept[i]  # the next point moves into place i and is checked next
        else:
            i += 1
    return tuple(kept)


def check_rcp(
    ruleset_folder: str,
    benchmark: str,
    runs: list[Run],
    trim: int,
    required: int | None = None,
    method: str = "trimmed",
    allowance: float = 0.0,
) -> RcpResult | None:
    """The RCP verdict for a closed result; None when the round has no RCP for it.

    ``required`` is the round's run count (the reference statistics assume it); a set
    with fewer runs, or too few to trim, is not evaluated (never an exception).
    ``allowance`` lowers the pass threshold (v5.0+ Llama 3.1 405B: 46,080 samples).
    """
    required = len(runs) if required is None else required
    points = references(ruleset_folder, benchmark, trim, required, method)
    if not points:
        return None
    if len(runs) < required or len(runs) <= 2 * trim:
        why = f"{len(runs)} run(s) found; the RCP check needs the round's {required}"
        return RcpResult(NOT_EVALUATED, why)
    batches = {r.global_batch_size for r in runs}
    if len(batches) != 1 or None in batches:
        shown = ", ".join(sorted(str(b) for b in batches))
        return RcpResult(
            "Unusable",
            f"global_batch_size must be logged (a finite number) and equal in all runs: {shown}",
        )
    bs = float(next(iter(batches)) or 0)
    converged_at = [r.epochs_or_samples for r in runs]
    # a run that never converged sorts last and is dropped as the slowest (no number
    # stands for it: GPT-3 counts tokens beyond any sentinel)
    epochs = [math.inf if e is None else e for e in converged_at]
    failed = sum(1 for e in converged_at if e is None)
    if failed > trim:
        return RcpResult(
            "Insufficient convergence", f"{failed} runs did not converge; at most {trim}"
        )
    ordered = sorted(epochs)
    try:
        mean = statistics.fmean(ordered[trim : len(ordered) - trim])
    except OverflowError:  # counts near the float maximum (a log may hold 1e308)
        mean = math.inf
    unit = load_rcp(ruleset_folder)["benchmarks"][benchmark]["unit"]
    result = _verdict(points, bs, mean, unit, required, allowance)
    result = _confidence(result, converged_at, trim, allowance)
    if METHODS[method].normalize and result.reference is not None:
        return _normalized(result, unit)
    return result


def _confidence(
    result: RcpResult, converged_at: list[float | None], trim: int, allowance: float
) -> RcpResult:
    """The pass probability of a result near its bound, said in the message."""
    from .rcp_confidence import describe, near_bound, pass_probability

    ref, mean = result.reference, result.submission_mean
    if ref is None or mean is None or not near_bound(mean, ref.minimum, ref.stdev):
        return result
    chance = pass_probability(converged_at, trim, ref.minimum - allowance)
    if chance is None:
        return result
    message = f"{result.message}; {describe(chance, len(converged_at))}"
    return replace(result, message=message, pass_probability=chance)


def _normalized(result: RcpResult, unit: str) -> RcpResult:
    """v2.1+: a result faster than the reference mean has its score normalized by
    reference mean / submission mean (1.0 for a slower one); the official tools write
    the factor into scaling.json only when the check passes, so a failing verdict names
    no factor (none is applied)."""
    assert result.reference is not None and result.submission_mean is not None
    if not result.passed:
        return result
    ref, mean = result.reference, result.submission_mean
    factor = max(ref.mean / mean, 1.0) if mean > 0 else 1.0
    message = result.message
    if factor > 1.0:
        message += (
            f"; faster than the reference mean: normalization factor "
            f"{_fmt(ref.mean, unit, ref.mean)} / {_fmt(mean, unit, ref.mean)} = {factor:.4f}"
        )
    return replace(result, message=message, normalization=factor)


def _verdict(
    points: tuple[Reference, ...],
    bs: float,
    mean: float,
    unit: str,
    runs: int,
    allowance: float = 0.0,
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
            f"batch size {bs:g} is above every reference (largest {ref.batch_size:g}): "
            f"missing reference points, submit RCPs (olympic mean {_fmt(mean, unit)} {unit})"
        )
        return RcpResult("Missing", why, mean, None)
    else:
        ref, fail = points[0], "Missing"
    ok = mean >= ref.minimum - allowance
    message = _message(ok, bs, mean, ref, unit, allowance)
    return RcpResult("Pass" if ok else fail, message, mean, ref)


def _fmt(value: float, unit: str, scale: float | None = None) -> str:
    """Samples and steps as integers; epochs with 2 decimals, 4 when the reference (or
    the value) is below 10 (DLRM counts fractions of an epoch)."""
    if unit in ("samples", "steps"):
        return f"{value:,.0f}"
    return f"{value:,.2f}" if abs(value if scale is None else scale) >= 10 else f"{value:,.4f}"


def _message(
    ok: bool, bs: float, mean: float, ref: Reference, unit: str, allowance: float = 0.0
) -> str:
    if ref.between is not None:
        where = f"interpolated between batch sizes {ref.between[0]:g} and {ref.between[1]:g}"
    elif ref.batch_size == bs:
        where = f"reference at batch size {bs:g}"
    else:
        where = f"batch size {bs:g} below every reference; smallest {ref.batch_size:g} used"
    relation = ">=" if ok else "<"

    def fmt(value: float) -> str:
        return _fmt(value, unit, ref.mean)

    minimum = fmt(ref.minimum - allowance)
    if allowance:
        minimum += f" ({fmt(ref.minimum)} less the allowed {fmt(allowance)})"
    return (
        f"olympic mean {fmt(mean)} {unit} {relation} minimum {minimum} "
        f"(reference mean {fmt(ref.mean)}, stdev {fmt(ref.stdev)}; {where})"
    )


def reference_at(
    ruleset_folder: str,
    benchmark: str,
    trim: int,
    batch_size: float,
    required: int,
    method: str = "trimmed",
) -> Reference | None:
    """The reference a closed result at ``batch_size`` is held to, as ``check_rcp``
    chooses it (exact, interpolated, or the smallest); None when there is none (no
    reference data, or a batch size above every reference). ``required``: the round's
    run count, as for ``check_rcp``."""
    points = references(ruleset_folder, benchmark, trim, required, method)
    exact = next((p for p in points if p.batch_size == batch_size), None)
    lower = [p for p in points if p.batch_size < batch_size]
    higher = [p for p in points if p.batch_size > batch_size]
    if exact is not None:
        return exact
    if lower and higher:
        return _interpolate(batch_size, lower[-1], higher[0], required)
    return higher[0] if higher else None
