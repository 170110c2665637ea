"""Comparisons: hardware columns from system descriptions, the shared result filters.

Expected figures are computed here from the corpus's system descriptions (read as plain
JSON) and the oracle's official scores, never from the code under test.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import read_oracle

from mllog_check.cli import cli
from mllog_check.results import compute_scores
from mllog_check.results.filters import ResultFilter
from mllog_check.results.hardware import availability_category, short_accelerator
from mllog_check.rounds import current_benchmark_name


def _description(corpus: Path, version: str, org: str, system: str) -> dict[str, str]:
    path = corpus / version / org / "systems" / f"{system}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _official(oracle: Path, version: str) -> dict[tuple[str, str, str], float]:
    rows = read_oracle(oracle, f"scores_{version}.csv")
    return {
        (r["org"], r["system"], r["benchmark"]): float(r["official_score_min"])
        for r in rows
        if r["official_score_min"]
    }


@pytest.mark.parametrize(
    ("status", "category"),
    [
        ("Available on-premise", "onprem"),
        ("available on premise", "onprem"),
        ("available", "onprem"),
        ("onprem", "onprem"),
        ("Available cloud", "cloud"),
        ("Available in cloud", "cloud"),
        ("Preview", "preview"),
        ("research", "rdi"),
        ("Research, Development, or Internal (RDI)", "rdi"),
        ("TODO", None),
        ("", None),
        (None, None),
    ],
)
def test_availability_categories(status: str | None, category: str | None) -> None:
    assert availability_category(status) == category


@pytest.mark.parametrize(
    ("model", "short"),
    [
        ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "B200"),
        ("AMD Instinct MI355X", "MI355X"),
        ("NVIDIA A100-SXM4-80GB (400W)", "A100"),
        ("Intel Gaudi2", "Gaudi2"),
        ("TPU-v5p", "TPU-v5p"),
        ("tpu-v3", "TPU-v3"),
        ("Graphcore IPU GC200", "GC200"),
        ("Something new", "Something new"),
    ],
)
def test_short_accelerator_names(model: str, short: str) -> None:
    assert short_accelerator(model) == short


def test_registry_aliases_give_one_name_across_rounds() -> None:
    assert current_benchmark_name("4.0.0", "ssd") == "retinanet"  # RetinaNet in ssd/
    assert current_benchmark_name("4.1.0", "gnn") == "rgat"
    assert current_benchmark_name("1.0.0", "ssd") == "ssd"  # SSD-ResNet34: no alias
    assert current_benchmark_name("5.1.0", "rgat") == "rgat"
    assert current_benchmark_name("", "gnn") == "rgat"


def test_filter_reads_scores_and_rows_alike() -> None:
    row = {
        "benchmark": "ssd",
        "ruleset": "4.1.0",
        "division": "closed",
        "availability": "available cloud",
        "accelerator_model": "NVIDIA H100-SXM5-80GB",
        "accelerators": 64,
    }
    assert ResultFilter(benchmarks=("retinanet",)).keeps(row)
    assert not ResultFilter(benchmarks=("retinanet",)).keeps({**row, "ruleset": "1.0.0"})
    assert ResultFilter(accelerators=("h100",), availability=("cloud",)).keeps(row)
    assert ResultFilter(accelerators=("*SXM5*",)).keeps(row)
    assert not ResultFilter(accelerators=("B200",)).keeps(row)
    assert ResultFilter(min_accelerators=64, max_accelerators=64).keeps(row)
    assert not ResultFilter(max_accelerators=8).keeps(row)
    assert not ResultFilter(min_accelerators=1).keeps({**row, "accelerators": None})
    assert not ResultFilter(divisions=("open",)).keeps(row)
    assert not ResultFilter().active and ResultFilter(divisions=("open",)).active


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["v4.1", "v5.0", "v5.1"])
def test_hardware_columns_follow_the_system_descriptions(
    corpus: Path, oracle: Path, version: str
) -> None:
    report = compute_scores([str(corpus / version)])
    official = _official(oracle, version)
    checked = 0
    for s in report.scores:
        desc = _description(corpus, version, s.org, s.system)
        nodes, per_node = int(desc["number_of_nodes"]), int(desc["accelerators_per_node"])
        assert (s.nodes, s.accelerators) == (nodes, nodes * per_node)
        assert s.accelerator_model == desc["accelerator_model_name"].strip()
        assert s.host == (desc["host_processor_model_name"].strip() or None)
        assert s.interconnect == (desc.get("accelerator_interconnect", "").strip() or None)
        key = (s.org, s.system, s.benchmark)
        if key in official:
            expected = official[key] * nodes * per_node
            assert s.accelerator_minutes == pytest.approx(expected, rel=1e-6)
            checked += 1
    assert checked == len(official) > 0


@pytest.mark.corpus
def test_score_filters_over_a_round(corpus: Path, oracle: Path) -> None:
    """--accelerator B200 --min-accelerators 16: the systems the descriptions say so (a
    GB200 is another model: the glob matches the short model name whole)."""
    expected = set()
    for (org, system, benchmark), _ in _official(oracle, "v5.1").items():
        desc = _description(corpus, "v5.1", org, system)
        count = int(desc["number_of_nodes"]) * int(desc["accelerators_per_node"])
        if re.search(r"\bB200\b", desc["accelerator_model_name"]) and count >= 16:
            expected.add((org, system, benchmark))
    args = ["score", str(corpus / "v5.1"), "--format", "json"]
    args += ["--accelerator", "B200", "--min-accelerators", "16"]
    result = CliRunner().invoke(cli, args)
    doc = json.loads(result.stdout)
    got = {(s["org"], s["system"], s["benchmark"]) for s in doc["scores"]}
    assert got == expected and expected
    assert {r["system"] for r in doc["runs"]} == {s for _, s, _ in expected}
    assert all(s["accelerator_model"] and s["nodes"] >= 2 for s in doc["scores"])


@pytest.mark.corpus
def test_score_filter_by_availability_and_old_benchmark_name(corpus: Path, oracle: Path) -> None:
    expected = {
        key
        for key in _official(oracle, "v4.1")
        if key[2] in ("ssd", "gnn")
        and "on-premise" in _description(corpus, "v4.1", key[0], key[1])["status"].lower()
    }
    args = ["score", str(corpus / "v4.1"), "--format", "json", "--benchmark", "retinanet"]
    args += ["--benchmark", "rgat"]  # v5.0's names of v4.1's ssd and gnn
    result = CliRunner().invoke(cli, [*args, "--availability", "onprem"])
    got = {(s["org"], s["system"], s["benchmark"]) for s in json.loads(result.stdout)["scores"]}
    assert got == expected and len(expected) == 2


@pytest.mark.corpus
def test_no_match_is_a_usage_error(corpus: Path) -> None:
    result = CliRunner().invoke(cli, ["score", str(corpus / "v5.1"), "--accelerator", "TPU*"])
    assert result.exit_code == 2 and "no result matches the filters" in result.stderr
    bad = CliRunner().invoke(
        cli, ["score", str(corpus / "v5.1"), "--min-accelerators", "9", "--max-accelerators", "8"]
    )
    assert bad.exit_code == 2


@pytest.mark.corpus
def test_audit_filter_keeps_the_chosen_results(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit"
    args = ["audit", str(corpus / "v5.1"), "--out", str(out), "--benchmark", "llama2_70b_lora"]
    result = CliRunner().invoke(cli, [*args, "--accelerator", "MI3*"])
    assert result.exit_code in (0, 1), result.output
    with open(out / "scores.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expected = {
        key
        for key in _official(oracle, "v5.1")
        if key[2] == "llama2_70b_lora"
        and "MI3" in _description(corpus, "v5.1", key[0], key[1])["accelerator_model_name"]
    }
    assert {(r["org"], r["system"], r["benchmark"]) for r in rows} == expected
    assert len(expected) == 5
    with open(out / "runs.csv", newline="", encoding="utf-8") as handle:
        systems = {r["system"] for r in csv.DictReader(handle)}
    assert systems == {s for _, s, _ in expected}


@pytest.mark.corpus
def test_energy_is_float64_in_frames_and_every_parquet(corpus: Path, tmp_path: Path) -> None:
    import pandas as pd

    from mllog_check.results import scores_frame

    for folder in ("v5.1/Oracle", "v5.0/Lenovo"):  # without and with power logs
        report = compute_scores([str(corpus / folder)])
        assert str(scores_frame(report)["energy_j"].dtype) == "float64"
        out = tmp_path / f"{folder.replace('/', '_')}.parquet"
        args = ["score", str(corpus / folder), "--format", "parquet", "-o", str(out)]
        CliRunner().invoke(cli, args)
        assert str(pd.read_parquet(out)["energy_j"].dtype) == "float64"
    lenovo = scores_frame(compute_scores([str(corpus / "v5.0/Lenovo")]))
    assert lenovo["energy_j"].notna().any()


@pytest.mark.corpus
def test_cost_parquet_has_typed_columns_and_hardware(corpus: Path, tmp_path: Path) -> None:
    import io

    import pandas as pd
    from conftest import FIXTURES

    args = ["cost", str(corpus / "v5.1/Oracle"), "--prices", str(FIXTURES / "prices/sample.csv")]
    result = CliRunner().invoke(cli, [*args, "--format", "parquet"])
    assert result.exit_code in (0, 1), result.output
    frame = pd.read_parquet(io.BytesIO(result.stdout_bytes))
    assert str(frame["energy_kwh"].dtype) == "float64"  # no power logs: all null, still float
    assert str(frame["minutes"].dtype) == "float64"
    assert set(frame["accelerator_model"]) == {"NVIDIA Blackwell GPU (B200-SXM-180GB)"}
    for row in frame.itertuples():
        assert row.accelerator_minutes == pytest.approx(row.minutes * row.accelerators)
    csv_doc = CliRunner().invoke(cli, [*args, "--format", "json", "--accelerator", "B200"])
    filtered = CliRunner().invoke(cli, [*args, "--format", "json", "--max-accelerators", "16"])
    rows = json.loads(filtered.stdout)["rows"]
    assert len(json.loads(csv_doc.stdout)["rows"]) == len(frame) > len(rows) == 2


@pytest.mark.corpus
def test_energy_efficiency_follows_the_official_energy(corpus: Path, oracle: Path) -> None:
    official = {
        (r["org"], r["system"], r["benchmark"]): float(r["official_power"])
        for r in read_oracle(oracle, "scores_v5.0.csv")
        if r["official_power"]
    }
    result = CliRunner().invoke(cli, ["score", str(corpus / "v5.0/Lenovo"), "--format", "json"])
    rows = json.loads(result.stdout)["efficiency"]
    assert len(rows) == len(official) == 4
    for row in rows:
        joules = official[(row["org"], row["system"], row["benchmark"])]
        desc = _description(corpus, "v5.0", row["org"], row["system"])
        count = int(desc["number_of_nodes"]) * int(desc["accelerators_per_node"])
        assert row["kwh_per_run"] == pytest.approx(joules / 3.6e6, rel=1e-6)
        assert row["runs_per_mwh"] == pytest.approx(1000 / (joules / 3.6e6), rel=1e-6)
        assert row["kwh_per_accelerator"] == pytest.approx(joules / 3.6e6 / count, rel=1e-6)
        assert row["rank"] == 1 and row["method"] == "official"


def test_energy_ranking_orders_each_benchmark() -> None:
    from types import SimpleNamespace

    from mllog_check.results.efficiency import efficiency_rows

    def score(org: str, joules: float | None, bench: str = "ssd", n: int = 8) -> object:
        return SimpleNamespace(
            org=org,
            system="s",
            benchmark=bench,
            ruleset="4.1.0",
            division="closed",
            energy_j=joules,
            accelerators=n,
            accelerator_model="m",
            minutes=1.0,
            energy_method="official",
        )

    rows = efficiency_rows(
        [
            score("A", 7.2e6),
            score("B", 3.6e6, n=16),
            score("C", None),
            score("D", float("nan")),
            score("E", 1.8e6, bench="retinanet"),
        ]
    )
    # v4.1's ssd is RetinaNet: one ranking under v5.0's name; no energy, no row
    assert {r.benchmark for r in rows} == {"retinanet"}
    assert [r.org for r in rows] == ["E", "B", "A"]
    assert [r.rank for r in rows] == [1, 2, 3]
    assert rows[1].kwh_per_run == 1.0 and rows[1].runs_per_mwh == 1000.0
    assert rows[1].kwh_per_accelerator == pytest.approx(1 / 16)


@pytest.mark.corpus
def test_report_shows_only_the_filtered_results(corpus: Path, tmp_path: Path) -> None:
    from mllog_check.html_report import ReportError, build_report

    descriptions = {
        p.stem: json.loads(p.read_text(encoding="utf-8"))
        for p in (corpus / "v5.1").glob("*/systems/*.json")
    }
    expected = {
        name
        for name, desc in descriptions.items()
        if desc["accelerator_model_name"].startswith("AMD Instinct MI35")
    }
    chosen = ResultFilter(accelerators=("MI35*",))
    result = build_report([str(corpus / "v5.1")], tmp_path / "r.html", result_filter=chosen)
    assert {s.system for s in result.page.sets} == expected and len(expected) == 3
    assert {r["system"] for r in result.page.data.runs} == expected
    with pytest.raises(ReportError, match="no result matches"):
        build_report(
            [str(corpus / "v5.1")],
            tmp_path / "n.html",
            result_filter=ResultFilter(accelerators=("TPU*",)),
        )
    table = CliRunner().invoke(cli, ["score", str(corpus / "v5.1"), "--accelerator", "B200"])
    # org, folder, system_name, division, availability (two words), accelerators
    counts = [line.split()[6] for line in table.stdout.splitlines() if line.startswith("Oracle")]
    assert counts == sorted(counts, key=int)  # 8 before 16, not as text


def test_hardware_fields_of_a_hostile_description(tmp_path: Path) -> None:
    from mllog_check.results.tree import load_system

    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "number_of_nodes": "1e400",
                "accelerators_per_node": "-8",
                "accelerator_model_name": "N/A",
                "host_processor_model_name": " ",
                "accelerator_interconnect": '=HYPERLINK("x")',
            }
        ),
        encoding="utf-8",
    )
    desc, problems = load_system(str(path))
    assert problems == []
    assert (desc.nodes, desc.accelerators, desc.accelerator_model, desc.host) == (
        None,
        None,
        None,
        None,
    )
    assert desc.interconnect == '=HYPERLINK("x")'  # kept as text; writers neutralize it
