"""How sure is an RCP pass: the chance that N runs converging like the result's own pass
the round's RCP check again (docs/scores.md, "How sure is an RCP verdict").

Only for a result whose olympic mean lies within one reference standard deviation of the
minimum acceptable mean: farther away, a rerun gives the same verdict. The result's own
epochs (or samples) to converge are drawn with replacement, N at a time (N: the runs it
has), each draw trimmed and averaged as the check does (a draw with more non-converged
runs than the trim drops fails), and compared with the same fixed minimum from the
reference runs. A fixed seed keeps the figure the same from run to run.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence

DRAWS = 10_000
SEED = 20_210_601  # any fixed value: the figure must not change between runs


def near_bound(mean: float, minimum: float, stdev: float) -> bool:
    """Within one reference standard deviation of the minimum acceptable mean."""
    return abs(mean - minimum) <= stdev


def pass_probability(
    converged_at: Sequence[float],
    trim: int,
    minimum: float,
    not_converged: float,
    draws: int = DRAWS,
    seed: int = SEED,
) -> float:
    """Share of ``draws`` bootstrap sets of len(converged_at) runs whose trimmed mean
    reaches ``minimum`` (``not_converged`` marks a run that never converged)."""
    rng = random.Random(seed)
    values = list(converged_at)
    n = len(values)
    passed = 0
    for _ in range(draws):
        sample = sorted(rng.choices(values, k=n))
        if sum(1 for v in sample if v >= not_converged) > trim:
            continue
        if statistics.fmean(sample[trim : n - trim]) >= minimum:
            passed += 1
    return passed / draws


def describe(probability: float, runs: int) -> str:
    return (
        f"within one reference stdev of the bound: {runs} runs converging like these pass "
        f"with probability {probability:.2f} (bootstrap of these runs, {DRAWS:,} draws)"
    )
