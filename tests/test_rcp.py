"""RCP: reference statistics, the t-test minimum, interpolation, above/below references."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from conftest import FIXTURES

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


def test_project_rcp_data_equals_the_published_reference_data(corpus: Path) -> None:
    shared = corpus.parent / "reference" / "rcp"
    if not shared.is_dir():
        pytest.skip("shared reference data not found")
    for folder in sorted(shared.iterdir()):
        ours = load_rcp(folder.name)["benchmarks"]
        for source in sorted(folder.glob("rcps_*.json")):
            published = json.loads(source.read_text())
            bench = source.stem[len("rcps_") :]
            mine = {r["name"]: r for r in ours[bench]["references"]}
            assert set(mine) == set(published), source
            for name, record in published.items():
                assert mine[name]["batch_size"] == record["BS"]
                counted = record.get("Epochs to converge", record.get("samples to converge"))
                assert mine[name]["converged_at"] == counted


def test_shipped_t_critical_values_are_scipys() -> None:
    from scipy.special import stdtrit

    from mllog_check.results import rcp

    table = rcp._t_table()
    assert set(table) == set(range(1, 201))
    for df, value in table.items():
        assert value == pytest.approx(float(stdtrit(df, rcp.ALPHA)), rel=1e-12, abs=1e-12)
    # outside the cache the value still comes from scipy
    assert rcp.critical_t(500) == pytest.approx(float(stdtrit(500, rcp.ALPHA)), rel=1e-12)
