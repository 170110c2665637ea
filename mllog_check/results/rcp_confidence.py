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

import math
import random
import statistics
from collections.abc import Sequence

DRAWS = 10_000
MAX_RUNS = 200  # a real result has at most 40 runs (U-Net3D); beyond, no bootstrap
BATCH = 50_000  # values drawn per random.choices call
SEED = 20_210_601  # any fixed value: the figure must not change between runs


def near_bound(mean: float, minimum: float, stdev: float) -> bool:
    """Within one reference standard deviation of the minimum acceptable mean."""
    return abs(mean - minimum) <= stdev


def pass_probability(
    converged_at: Sequence[float | None],
    trim: int,
    minimum: float,
    draws: int = DRAWS,
    seed: int = SEED,
) -> float | None:
    """Share of ``draws`` bootstrap sets of len(converged_at) runs whose trimmed mean
    reaches ``minimum``; None marks a run that never converged (no number stands for it:
    GPT-3 counts 1.4e9 tokens, beyond any sentinel a count could be mistaken for). None
    for more than MAX_RUNS runs (a bound on work: docs/security.md)."""
    n = len(converged_at)
    if n > MAX_RUNS:
        return None
    rng = random.Random(seed)
    values = [math.inf if v is None else v for v in converged_at]
    passed = 0
    # One call for a batch of draws: random.choices draws each item with one random()
    # call, so the batch is the same stream as one call per draw (the figure unchanged).
    per_batch = max(1, BATCH // max(n, 1))
    for first in range(0, draws, per_batch):
        batch = min(per_batch, draws - first)
        flat = rng.choices(values, k=n * batch)
        for start in range(0, n * batch, n):
            sample = sorted(flat[start : start + n])
            if trim < n and sample[n - trim - 1] == math.inf:
                continue  # more runs that never converged than the trim drops
            if statistics.fmean(sample[trim : n - trim]) >= minimum:
                passed += 1
    return passed / draws


def describe(probability: float, runs: int) -> str:
    return (
        f"within one reference stdev of the bound: {runs} runs converging like these pass "
        f"with probability {probability:.2f} (bootstrap of these runs, {DRAWS:,} draws)"
    )
