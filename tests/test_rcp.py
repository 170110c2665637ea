"""RCP: reference statistics, the t-test minimum, interpolation, above/below references."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from conftest import FIXTURES, shared_rounds

from mllog_check.results import compute_scores
from mllog_check.results.rcp import (
    Reference,
    _verdict,
    load_rcp,
    minimum_mean,
    reference_stats,
    references,
)

SCORE = FIXTURES / "score"


def test_minimum_mean_is_where_the_one_sided_t_test_reaches_p_0_05() -> None:
    from scipy import stats

    for mean, stdev, n_ref, n_sub in [
        (35.0, 0.9, 15, 3),
        (2.7e6, 1.4e5, 18, 8),
        (1600, 230, 80, 38),
    ]:
        low = minimum_mean(mean, stdev, n_ref, n_sub)
        assert low < mean
        # one-sided p of "submission mean < reference mean" at the minimum is exactly alpha
        t, p_two = stats.ttest_ind_from_stats(low, stdev, n_sub, mean, stdev, n_ref, equal_var=True)
        assert t < 0 and p_two / 2 == pytest.approx(0.05, abs=1e-9)
    assert minimum_mean(50.0, 0.0, 10, 3) == 50.0  # no spread: the mean itself


def test_reference_stats_are_olympic_trimmed() -> None:
    runs = [30.0, 34.0, 35.0, 35.0, 36.0, 50.0]
    ref = reference_stats(runs, 1, 3, 1024)
    assert ref.mean == statistics.fmean([34.0, 35.0, 35.0, 36.0])
    assert ref.stdev == statistics.pstdev([34.0, 35.0, 35.0, 36.0])
    unet = reference_stats([float(i) for i in range(20)], 4, 38, 32)
    assert unet.mean == pytest.approx(9.5)  # 4 dropped from each end


def test_v1_0_bert_3072_reference_numbers() -> None:
    (ref,) = [r for r in references("training_1.0.0", "bert", 1, 10) if r.batch_size == 3072]
    assert round(ref.mean) == 2_764_499 and round(ref.minimum) == 2_663_811


def test_pruning_keeps_references_that_never_allow_slower_convergence() -> None:
    kept = [int(r.batch_size) for r in references("training_1.0.0", "bert", 1, 10)]
    assert kept == [256, 3072, 6144, 6912, 12288]
    assert [int(r.batch_size) for r in references("training_1.0.0", "resnet", 1, 5)] == [
        1632,
        3264,
        32768,
        65536,
    ]
    assert references("training_1.0.0", "minigo", 1, 10) == ()  # no RCP for MiniGo in v1.0


def _points() -> tuple[Reference, ...]:
    return (
        Reference(100, 10.0, 1.0, minimum_mean(10.0, 1.0, 18, 3)),
        Reference(200, 20.0, 2.0, minimum_mean(20.0, 2.0, 18, 3)),
    )


def test_interpolation_between_the_two_nearest_batch_sizes() -> None:
    result = _verdict(_points(), 150, 100.0, "epochs", 5)
    assert result.reference is not None and result.reference.between == (100, 200)
    assert result.reference.mean == pytest.approx(15.0)
    assert result.reference.stdev == pytest.approx(1.5)
    from scipy import stats

    # an interpolated point stands for 2 x 5 reference runs; the submission for 5 - 2
    expected = 15.0 + float(stats.t.ppf(0.05, 10 + 3 - 2)) * 1.5 * math.sqrt(1 / 10 + 1 / 3)
    assert result.reference.minimum == pytest.approx(expected)
    assert result.verdict == "Pass" and "interpolated between batch sizes 100 and 200" in (
        result.message
    )
    assert _verdict(_points(), 150, 10.0, "epochs", 5).verdict == "Interp. Fail"


def test_above_all_references_fails_and_below_all_uses_the_smallest() -> None:
    above = _verdict(_points(), 400, 100.0, "epochs", 5)
    assert above.verdict == "Missing" and "above every reference" in above.message
    below = _verdict(_points(), 50, 10.0, "epochs", 5)
    assert below.verdict == "Pass" and "smallest 100 used" in below.message
    assert _verdict(_points(), 50, 5.0, "epochs", 5).verdict == "Missing"


@pytest.mark.parametrize(
    ("case", "verdict", "rule"),
    [
        ("rcp_pass", "Pass", None),
        ("rcp_fail", "Fail", "MLR010"),
        ("rcp_interp", "Pass", None),
        ("rcp_below", "Pass", None),
        ("rcp_below_fail", "Missing", "MLR011"),
        ("rcp_above", "Missing", "MLR011"),
        ("rcp_mixed_batch", "Unusable", "MLR012"),
        ("two_failed", "Insufficient convergence", "MLR012"),
    ],
)
def test_rcp_on_fixture_trees(case: str, verdict: str, rule: str | None) -> None:
    report = compute_scores([str(SCORE / case)], "1.0.0")
    (score,) = report.scores
    assert score.rcp_verdict == verdict, score.rcp_message
    rcp_rules = {p.rule for p in report.problems if p.rule.startswith("MLR01")}
    assert rcp_rules == ({rule} if rule else set())


def test_rcp_message_names_every_number() -> None:
    (score,) = compute_scores([str(SCORE / "rcp_fail")], "1.0.0").scores
    message = score.rcp_message
    assert message.startswith("olympic mean 30.00 epochs < minimum 34.55")
    assert "reference mean 35.15" in message and "reference at batch size 3264" in message


@pytest.mark.corpus
def test_project_rcp_data_equals_the_published_reference_data(corpus: Path) -> None:
    shared = corpus.parent / "reference" / "rcp"
    assert shared.is_dir(), f"shared reference data not found at {shared}"
    files = references = 0
    for folder, rnd in shared_rounds(shared, at_least=10 + 3):  # with hpc_1.0.0..3.0.0
        if rnd.path("rcp") is None:
            continue  # a round whose RCP data this build does not have yet (docs/rounds.md)
        ours = load_rcp(folder.name)["benchmarks"]
        for source in sorted(folder.glob("rcps_*.json")):
            published = json.loads(source.read_text())
            bench = source.stem[len("rcps_") :]
            if rnd.benchmark(bench) is None:
                # v5.1's official data still holds BERT, retired that round: never used
                assert bench not in ours, source
                continue
            mine = {r["name"]: r for r in ours[bench]["references"]}
            assert set(mine) == set(published), source
            for name, record in published.items():
                assert mine[name]["batch_size"] == record["BS"]
                counted = record.get("Epochs to converge", record.get("samples to converge"))
                assert mine[name]["converged_at"] == counted
                references += 1
            files += 1
    # today's figures (Training, then HPC): a walk that compares nothing must not pass
    # Training: 89 files (v5.1's unused BERT entry is not compared), 538 references; HPC 10, 40
    assert files >= 89 + 10 and references >= 538 + 40, (files, references)


def test_shipped_t_critical_values_are_scipys() -> None:
    from scipy.special import stdtrit

    from mllog_check.results import rcp

    table = rcp._t_table()
    assert set(table) == set(range(1, 201))
    for df, value in table.items():
        assert value == pytest.approx(float(stdtrit(df, rcp.ALPHA)), rel=1e-12, abs=1e-12)
    # outside the cache a closed-form expansion (no scipy in the core install) equals scipy's
    for df in (201, 250, 500, 1000, 5000):
        assert rcp.critical_t(df) == pytest.approx(float(stdtrit(df, rcp.ALPHA)), abs=1e-9)


def test_normalized_method_takes_the_stdev_of_all_reference_runs() -> None:
    from mllog_check.results.rcp import METHODS

    runs = [30.0, 34.0, 35.0, 35.0, 36.0, 50.0]
    trimmed = reference_stats(runs, 1, 3, 1024, METHODS["trimmed"])
    normalized = reference_stats(runs, 1, 3, 1024, METHODS["normalized"])
    assert trimmed.mean == normalized.mean == statistics.fmean([34.0, 35.0, 35.0, 36.0])
    assert normalized.stdev == statistics.pstdev(runs) > trimmed.stdev
    assert normalized.minimum < trimmed.minimum  # a wider spread allows faster convergence


def test_normalized_pruning_is_on_means() -> None:
    # v3.1 Stable Diffusion: 2048 converges fastest on average; smaller batches go
    points = references("training_3.1.0", "stable_diffusion", 1, 10, "normalized")
    assert [int(p.batch_size) for p in points] == [2048]
    assert [int(p.batch_size) for p in references("training_5.1.0", "llama31_8b", 1, 10)] == [
        16,
        32,
        64,
        96,
        128,
    ]


def _runs(counts: list[float | None], batch: int = 100) -> list:  # type: ignore[type-arg]
    from mllog_check.results.runs import Run

    return [
        Run(f"r{i}", "o", "s", "b", "closed", 1.0, "success", True, True, c, batch, ())
        for i, c in enumerate(counts)
    ]


def test_normalization_factor_only_when_faster_than_the_reference_mean() -> None:
    from mllog_check.results.rcp import _normalized

    fast = _normalized(_verdict(_points(), 100, 9.5, "epochs", 5), "epochs")
    assert fast.passed and fast.normalization == pytest.approx(10.0 / 9.5)
    assert "normalization factor 10.00 / 9.50 = 1.0526" in fast.message
    assert fast.message.startswith("olympic mean 9.50 epochs >= minimum 8.92")
    slow = _normalized(_verdict(_points(), 100, 11.0, "epochs", 5), "epochs")
    assert slow.normalization == 1.0 and "normalization" not in slow.message


def test_allowance_lowers_the_minimum_and_the_message_says_so() -> None:
    minimum = _points()[0].minimum
    below = minimum - 0.5
    assert _verdict(_points(), 100, below, "epochs", 5).verdict == "Fail"
    allowed = _verdict(_points(), 100, below, "epochs", 5, allowance=1.0)
    assert allowed.verdict == "Pass" and "less the allowed 1.00" in allowed.message


def test_too_few_runs_are_not_evaluated_never_an_exception() -> None:
    from mllog_check.results.rcp import NOT_EVALUATED, check_rcp

    for counts in ([], [35.0], [35.0, 36.0], [35.0, 36.0, 37.0, 38.0]):
        result = check_rcp("training_1.0.0", "resnet", _runs(counts, 3264), 1, 5)
        assert result is not None and result.verdict == NOT_EVALUATED
        assert f"{len(counts)} run(s) found; the RCP check needs the round's 5" == result.message
        assert [p.rule for p in result.problems("folder")] == ["MLR040"]
    full = check_rcp("training_1.0.0", "resnet", _runs([40.0] * 5, 3264), 1, 5)
    assert full is not None and full.verdict == "Pass"


def test_above_every_reference_names_the_missing_reference_points() -> None:
    result = _verdict(_points(), 400, 100.0, "epochs", 5)
    assert result.verdict == "Missing"
    assert "missing reference points, submit RCPs (olympic mean 100.00 epochs)" in result.message
