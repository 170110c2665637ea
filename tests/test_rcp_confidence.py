"""How sure is an RCP verdict (docs/scores.md): near the bound, the chance that N runs
converging like the result's pass again, by bootstrap of its own runs; on real logs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mllog_check.results import compute_scores
from mllog_check.results.rcp_confidence import pass_probability

POD16 = "v1.0/Graphcore/results/ipu-pod16-POPART-closed/bert"
NVIDIA_BERT = "v1.0/NVIDIA/results/dgxa100_ngc21.05_pytorch/bert"
GPT3 = "v4.0/Google/results/cloud-tpu-v5p-3072-maxtext/gpt3"


def _numpy_estimate(values: list[float], trim: int, minimum: float, draws: int) -> float:
    """The same question answered with numpy's generator (another random stream)."""
    rng = np.random.default_rng(7)
    sets = np.sort(rng.choice(np.array(values), size=(draws, len(values))), axis=1)
    means = sets[:, trim : len(values) - trim].mean(axis=1)
    return float((means >= minimum).mean())


@pytest.mark.corpus
def test_a_pass_near_the_bound_says_how_likely_a_rerun_passes(corpus: Path) -> None:
    report = compute_scores([str(corpus / POD16)], ruleset="1.0.0")
    (score,) = report.scores
    assert score.rcp_verdict == "Pass" and score.rcp_pass_probability is not None
    samples = [r.epochs_or_samples for r in report.runs]
    assert len(samples) == 10 and None not in samples
    expected = _numpy_estimate(samples, 1, 2_663_811, 40_000)  # minimum: docs/differences.md
    assert abs(score.rcp_pass_probability - expected) < 0.02
    assert 0.5 < score.rcp_pass_probability < 1.0
    assert f"probability {score.rcp_pass_probability:.2f}" in score.rcp_message


@pytest.mark.corpus
def test_far_from_the_bound_nothing_is_added(corpus: Path) -> None:
    (score,) = compute_scores([str(corpus / NVIDIA_BERT)], ruleset="1.0.0").scores
    assert score.rcp_verdict == "Pass"
    assert score.rcp_pass_probability is None and "bootstrap" not in score.rcp_message


def test_the_figure_is_the_same_every_time_and_counts_failed_runs() -> None:
    runs: list[float | None] = [10.0, 11.0, 12.0, 9.0, 10.5]
    assert pass_probability(runs, 1, 10.4) == pass_probability(runs, 1, 10.4)
    assert pass_probability(runs, 1, 0.0) == 1.0
    # Two runs that never converged among five: a draw holding both fails (trim 1).
    share = pass_probability([10.0, 10.0, 10.0, None, None], 1, 5.0)
    assert share is not None and 0.0 < share < 1.0


def test_the_batched_draws_are_the_draws_one_at_a_time() -> None:
    """The figure as one random.choices call per draw gives it, to the last draw."""
    import random
    import statistics

    values = [10.0, 11.0, 12.0, 9.0, 10.5, 9.5, 11.5, 10.2]
    rng, passed = random.Random(5), 0
    for _ in range(3_000):
        sample = sorted(rng.choices(values, k=len(values)))
        passed += statistics.fmean(sample[1:-1]) >= 10.4
    assert pass_probability(values, 1, 10.4, draws=3_000, seed=5) == passed / 3_000


@pytest.mark.corpus
def test_token_counts_are_not_runs_that_never_converged(corpus: Path) -> None:
    """GPT-3 counts samples in tokens (1.2e9 per run on v4.0 Google TPU v5p): with a bound
    within a stdev below the mean every draw passes. Was: probability 0.00, every count
    taken for the 1e9 that stood for a run that never converged."""
    report = compute_scores([str(corpus / GPT3)], ruleset="4.0.0")
    counts = [r.epochs_or_samples for r in report.runs]
    assert counts and all(c is not None and c > 1e9 for c in counts)
    assert pass_probability(counts, 1, min(c for c in counts if c) * 0.99) == 1.0


def test_runs_beyond_any_result_are_not_resampled() -> None:
    """4,000 runs took 187 s: beyond MAX_RUNS no figure (bounded work, docs/security.md)."""
    from mllog_check.results.rcp_confidence import MAX_RUNS

    assert pass_probability([1.0] * (MAX_RUNS + 1), 1, 0.5) is None
    assert pass_probability([1.0] * MAX_RUNS, 1, 0.5) == 1.0


@pytest.mark.corpus
def test_score_runs_shows_the_chance_below_the_runs(corpus: Path) -> None:
    from click.testing import CliRunner

    from mllog_check.cli.group import cli

    done = CliRunner().invoke(cli, ["score", str(corpus / POD16), "--runs", "--ruleset", "1.0.0"])
    assert done.exit_code == 0, done.output
    assert "RCP " in done.output and "pass with probability" in done.output
