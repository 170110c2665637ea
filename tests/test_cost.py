"""Perf per dollar, ratio, break-even, cost per run, honesty rules, output forms, plot."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from mllog_check.cost import NOTE, CostError, compare, load_catalog, load_catalogs, output
from mllog_check.cost.compare import PERF_SCALE
from mllog_check.cost.plot import render

PRICES = FIXTURES / "prices"


@dataclass(frozen=True)
class FakeScore:
    """The fields of mllog_check.results.Score that the cost stage reads."""

    org: str
    system: str
    system_name: str
    benchmark: str
    minutes: float | None
    division: str = "closed"
    ruleset: str = "1.0.0"
    valid: bool = True
    reason: str = ""
    availability: str = "onprem"
    accelerators: int | None = 8
    rcp_verdict: str = "pass"
    energy_j: float | None = None
    energy_method: str = ""
    nodes: int | None = None


POD = FakeScore("Graphcore", "ipu-pod16-TF1", "IPU-POD16", "resnet", 30.0, accelerators=16)
DGX = FakeScore("NVIDIA", "dgxa100_ngc21.05_mxnet", "dgxa100_ngc21.05_mxnet", "resnet", 20.0)


def sample() -> list:
    return load_catalog(PRICES / "sample.csv")


def test_formulas_on_hand_numbers() -> None:
    report = compare([POD, DGX], sample(), baseline="DGX A100 640GB")
    dgx, pod = sorted(report.rows, key=lambda r: r.org != "NVIDIA")
    assert dgx.is_baseline and not pod.is_baseline
    assert pod.perf_per_dollar == pytest.approx(PERF_SCALE / (30.0 * 149995))
    assert pod.ratio_to_baseline == pytest.approx(20.0 * 300000 / (30.0 * 149995))
    # Break-even: the DGX price at which its perf/$ equals the pod's.
    assert pod.break_even_price == pytest.approx(30.0 * 149995 / 20.0)
    assert dgx.ratio_to_baseline == pytest.approx(1.0)
    assert dgx.break_even_price == pytest.approx(300000)
    assert pod.cost_per_run is None and pod.accelerators == 16
    assert (pod.price_kind, dgx.price_kind) == ("list", "estimated")
    assert report.note == NOTE and "not an official MLPerf metric" in NOTE


def test_no_baseline_means_no_ratio() -> None:
    report = compare([POD, DGX], sample())
    assert all(r.ratio_to_baseline is None and r.break_even_price is None for r in report.rows)
    assert all(r.perf_per_dollar is not None for r in report.rows)


def test_baseline_by_folder_name_and_unknown_baseline() -> None:
    report = compare([POD, DGX], sample(), baseline="dgxa100_ngc21.05_mxnet")
    assert [r.system for r in report.rows if r.is_baseline] == ["dgxa100_ngc21.05_mxnet"]
    with pytest.raises(CostError, match="baseline 'TPU' matches no priced result"):
        compare([POD, DGX], sample(), baseline="TPU")


def test_cloud_hourly_cost_per_run() -> None:
    report = compare([POD, DGX], load_catalog(PRICES / "cloud.yaml"), baseline="DGX A100 640GB")
    pod = next(r for r in report.rows if r.org == "Graphcore")
    assert pod.cost_per_run == pytest.approx(30.0 * 30.0 / 60)  # $30/h for 30 min
    assert pod.runs_per_1k == pytest.approx(1000 / 15.0) and pod.perf_per_dollar is None
    assert pod.ratio_to_baseline == pytest.approx((20.0 * 32.77) / (30.0 * 30.0))
    assert report.perf_unit == "runs per $1k"


def test_unpriced_system_is_a_row_without_price_never_a_zero() -> None:
    tpu = FakeScore("Google", "tpu-v4-128-TF", "tpu-v4-128", "resnet", 10.0)
    report = compare([POD, tpu], sample())
    row = next(r for r in report.rows if r.org == "Google")
    assert row.price is None and row.perf_per_dollar is None and row.total_per_run is None
    notes = [f for f in report.footnotes if f.startswith("no price for")]
    assert notes == ["no price for tpu-v4-128-TF (tpu-v4-128, resnet): listed without cost; add "
                     "them (or aliases) to a price catalog"]  # fmt: skip
    _, body = output.table_cells(report)
    assert "no price" in next(cells for cells in body if "tpu-v4-128-TF" in cells)


def test_ambiguous_price_match_is_an_error(tmp_path: Path) -> None:
    extra = tmp_path / "extra.csv"
    extra.write_text(
        "system,aliases,price,currency,kind,includes,source,date\n"
        "Any IPU,ipu-*,1,USD,list,host,src,2021-07-01\n"
    )
    with pytest.raises(CostError, match="matches several prices"):
        compare([POD], load_catalogs([PRICES / "sample.csv", extra]))


def test_mixed_division_grouped_refused_only_when_asked_then_footnoted() -> None:
    pod_open = replace(POD, system="ipu-pod16-POPART-open", division="open")
    # Without a baseline: two groups, no ratio across them, no refusal.
    grouped = compare([pod_open, DGX], sample())
    assert {(r.division, r.ratio_to_baseline) for r in grouped.rows} == {
        ("open", None),
        ("closed", None),
    }
    # The baseline asked for lies in another division: refused without --allow-mixed.
    with pytest.raises(CostError, match="different divisions: closed, open"):
        compare([pod_open, DGX], sample(), baseline="DGX A100 640GB")
    report = compare([pod_open, DGX], sample(), baseline="DGX A100 640GB", allow_mixed=True)
    assert any("mixed divisions (closed, open)" in f for f in report.footnotes)
    assert "--allow-mixed" in output.full_note(report)


def test_mixed_rounds_grouped_and_close_is_closed() -> None:
    old = replace(POD, ruleset="0.7.0")
    report = compare([old, DGX, replace(DGX, ruleset="0.7.0")], sample(), baseline="DGX A100 640GB")
    # Each round has its own baseline; ratios stay within a round.
    bases = {r.ruleset: r.system for r in report.rows if r.is_baseline}
    assert bases == {"0.7.0": DGX.system, "1.0.0": DGX.system}
    pod = next(r for r in report.rows if r.org == "Graphcore")
    assert pod.ruleset == "0.7.0" and pod.ratio_to_baseline == pytest.approx(
        20.0 * 300000 / (30.0 * 149995)
    )
    with pytest.raises(CostError, match=r"different rounds \(rulesets\): 0\.7\.0, 1\.0\.0"):
        compare([old, DGX], sample(), baseline="DGX A100 640GB")
    # v1.0 PCL writes "close": the same division as "Closed".
    report = compare([replace(POD, division="close"), replace(DGX, division="Closed")], sample())
    assert {r.division for r in report.rows} == {"closed"}


def test_mixed_currency_and_price_class_get_no_ratio(tmp_path: Path) -> None:
    eur = tmp_path / "eur.csv"
    eur.write_text(
        "system,aliases,price,currency,kind,includes,source,date\n"
        "IPU-POD16,ipu-pod16-*,140000,EUR,list,host,src,2021-07-01\n"
    )
    dgx_only = [e for e in sample() if e.system.startswith("DGX")]
    report = compare([POD, DGX], [*load_catalog(eur), *dgx_only], baseline="DGX A100 640GB")
    pod = next(r for r in report.rows if r.org == "Graphcore")
    assert pod.ratio_to_baseline is None and pod.perf_per_dollar is not None
    assert any("currency differs" in f for f in report.footnotes)
    hourly_pod = [e for e in load_catalog(PRICES / "cloud.yaml") if e.system == "IPU-POD16"]
    report = compare([POD, DGX], [*hourly_pod, *dgx_only], baseline="DGX A100 640GB")
    pod = next(r for r in report.rows if r.org == "Graphcore")
    assert pod.ratio_to_baseline is None and pod.cost_per_run == pytest.approx(15.0)


def test_invalid_result_gets_no_perf_and_a_footnote() -> None:
    bad = replace(POD, valid=False, minutes=None, reason="3 runs failed", rcp_verdict="fail")
    report = compare([bad, DGX], sample(), baseline="DGX A100 640GB")
    pod = next(r for r in report.rows if r.org == "Graphcore")
    assert pod.perf_per_dollar is None and pod.ratio_to_baseline is None
    assert any("not a valid result (3 runs failed)" in f for f in report.footnotes)
    assert any("RCP verdict 'fail'" in f for f in report.footnotes)


def test_several_baselines_take_the_best_and_say_so() -> None:
    slow = replace(DGX, system="dgxa100_ngc21.05_tensorflow", minutes=40.0)
    report = compare([POD, DGX, slow], sample(), baseline="DGX A100 640GB")
    assert [r.system for r in report.rows if r.is_baseline] == ["dgxa100_ngc21.05_mxnet"]
    assert any("several baseline results" in f for f in report.footnotes)


def test_benchmark_filter_and_missing_baseline_footnote() -> None:
    bert = FakeScore("Graphcore", "ipu-pod16-POPART-closed", "IPU-POD16", "bert", 35.0)
    report = compare([POD, DGX, bert], sample(), baseline="DGX A100 640GB")
    assert any("bert: no valid baseline result" in f for f in report.footnotes)
    only = compare([POD, DGX, bert], sample(), benchmarks=["resnet"])
    assert {r.benchmark for r in only.rows} == {"resnet"}
    with pytest.raises(CostError, match="no scores to compare"):
        compare([POD], sample(), benchmarks=["ssd"])


def test_json_csv_frame_forms() -> None:
    report = compare([POD, DGX], sample(), baseline="DGX A100 640GB")
    doc = output.to_json(report)
    assert list(doc) == ["note", "rows"]
    assert list(doc["rows"][0])[: len(output.JSON_FIELDS)] == list(output.JSON_FIELDS)
    assert {"availability", "price_date"} <= set(doc["rows"][0])
    assert NOTE in doc["note"] and "runs/day per $1M" in doc["note"]
    header, *body = output.csv_rows(report)
    assert header[-1] == "note" and all(NOTE in row[-1] for row in body)
    frame = output.to_frame(report)
    assert len(frame) == 2 and frame.attrs["note"] == NOTE
    assert {"ratio_to_baseline", "price_includes", "availability", "accelerators"} <= set(frame)


def test_the_json_row_is_typed_as_the_cost_rows_fields() -> None:
    """CostJsonRow's keys are the JSON and CSV columns, in order, each typed as CostRow's
    field of that name (``hours`` is minutes / 60), and every row produced holds them."""
    from typing import get_type_hints

    from mllog_check.cost.compare import CostRow

    hints = get_type_hints(output.CostJsonRow)
    assert tuple(hints) == output.JSON_FIELDS + output.EXTRA_FIELDS
    assert tuple(get_type_hints(output.CostJsonFixed)) == output.JSON_FIELDS
    fields = get_type_hints(CostRow)
    assert {k: v for k, v in hints.items() if k != "hours"} == {
        k: fields[k] for k in hints if k != "hours"
    }
    assert hints["hours"] == fields["minutes"]
    doc = output.to_json(compare([POD, DGX], sample(), baseline="DGX A100 640GB"))
    assert tuple(get_type_hints(output.CostJson)) == tuple(doc)
    assert all(tuple(row) == tuple(hints) for row in doc["rows"])


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_file_format(tmp_path: Path, suffix: str) -> None:
    report = compare([POD, DGX], sample(), baseline="DGX A100 640GB")
    path = tmp_path / f"cost{suffix}"
    render(report, path)
    data = path.read_bytes()
    assert 5_000 < len(data) < 400_000
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        import xml.etree.ElementTree as ET

        root = ET.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert b"Graphcore MLPerf Training v1.0 announcement" in data  # the source footnote


def test_plot_refuses_other_formats(tmp_path: Path) -> None:
    with pytest.raises(CostError, match=r"must end in \.png or \.svg"):
        render(compare([POD, DGX], sample()), tmp_path / "cost.pdf")


def test_plot_is_deterministic(tmp_path: Path) -> None:
    report = compare([POD, DGX], sample(), baseline="DGX A100 640GB")
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    render(report, first)
    render(report, second)
    assert first.read_bytes() == second.read_bytes()


@settings(max_examples=60, deadline=None)
@given(
    minutes=st.tuples(st.floats(0.5, 5000), st.floats(0.5, 5000)),
    prices=st.tuples(st.floats(1, 1e8), st.floats(1, 1e8)),
)
def test_break_even_price_makes_the_ratio_one(
    minutes: tuple[float, float], prices: tuple[float, float]
) -> None:
    pod_price, dgx_price, *_ = sample()
    pod = replace(POD, minutes=minutes[0])
    dgx = replace(DGX, minutes=minutes[1])
    catalog = [replace(pod_price, price=prices[0]), replace(dgx_price, price=prices[1])]
    row = next(r for r in compare([pod, dgx], catalog, "DGX A100 640GB").rows if r.org != "NVIDIA")
    assert row.ratio_to_baseline == pytest.approx(minutes[1] * prices[1] / (minutes[0] * prices[0]))
    # Priced at the break-even, the baseline ties with the row.
    at_break_even = [catalog[0], replace(dgx_price, price=row.break_even_price)]
    tied = compare([pod, dgx], at_break_even, "DGX A100 640GB").rows
    assert next(r for r in tied if r.org != "NVIDIA").ratio_to_baseline == pytest.approx(1.0)
