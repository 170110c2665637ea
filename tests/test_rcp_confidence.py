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
    runs = [10.0, 11.0, 12.0, 9.0, 10.5]
    assert pass_probability(runs, 1, 10.4, 1e9) == pass_probability(runs, 1, 10.4, 1e9)
    assert pass_probability(runs, 1, 0.0, 1e9) == 1.0
    # Two runs that never converged among five: a draw holding both fails (trim 1).
    with_failures = [10.0, 10.0, 10.0, 1e9, 1e9]
    share = pass_probability(with_failures, 1, 5.0, 1e9)
    assert 0.0 < share < 1.0


@pytest.mark.corpus
def test_score_runs_shows_the_chance_below_the_runs(corpus: Path) -> None:
    from click.testing import CliRunner

    from mllog_check.cli.group import cli

    done = CliRunner().invoke(cli, ["score", str(corpus / POD16), "--runs", "--ruleset", "1.0.0"])
    assert done.exit_code == 0, done.output
    assert "RCP " in done.output and "pass with probability" in done.output
