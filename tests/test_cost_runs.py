"""Cost per training run (hardware time plus electricity) and cost over whole org folders.

docs/cost.md, "Cost per run" (grouping by round, division, benchmark).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, read_oracle
from test_cost import FakeScore

from mllog_check.cli import cli
from mllog_check.cost import Assumptions, CostError, compare, load_catalog
from mllog_check.cost.plot import render_scale

SAMPLE = FIXTURES / "prices" / "sample.csv"


# The cost stage's view of a score (tests/test_cost.py), with v5.1 cloud defaults.
Scored = partial(FakeScore, ruleset="5.1.0", availability="available cloud", rcp_verdict="Pass")


def oracle_scores(corpus: Path, oracle: Path, org: str) -> list[FakeScore]:
    out = []
    for row in read_oracle(oracle, "scores_v5.1.csv"):
        if row["org"] != org:
            continue
        desc = json.loads((corpus / "v5.1" / org / "systems" / f"{row['system']}.json").read_text())
        nodes, per = int(desc["number_of_nodes"]), int(desc["accelerators_per_node"])
        out.append(
            Scored(
                org,
                row["system"],
                row["system_name"],
                row["benchmark"],
                float(row["official_score_min"]),
                accelerators=nodes * per,
                nodes=nodes,
            )
        )
    return out


@pytest.mark.corpus
def test_oracle_v51_cost_per_run_hourly_times_instances_times_hours(
    corpus: Path, oracle: Path
) -> None:
    scores = oracle_scores(corpus, oracle, "Oracle")
    report = compare(scores, load_catalog(SAMPLE))
    assert {(r.system, r.benchmark) for r in report.rows} == {
        ("1xBM.GPU.B200.8", "llama31_8b"),
        ("8xBM.GPU.B200.8", "llama31_8b"),
        ("2xBM.GPU.B200.8", "flux1"),
        ("9xBM.GPU.B200.8", "flux1"),
    }
    row = next(r for r in report.rows if r.system == "9xBM.GPU.B200.8")
    # By hand: $128 per instance-hour × 9 instances × 55.2243 min / 60 = $1,060.31.
    assert row.instances == 9 and row.instances_from == "folder 9xBM.GPU.B200.8"
    assert row.cost_per_run == pytest.approx(128 * 9 * 55.224322916666665 / 60)
    assert row.cost_per_run == pytest.approx(1060.31, abs=0.01)
    assert row.total_per_run == row.cost_per_run == row.hardware_cost
    assert row.cost_basis == "9×$128.00/h×0.920h"
    # One unit per column: an hourly price's perf/$ is runs per $1k of rental.
    assert row.runs_per_1k == pytest.approx(1000 / row.cost_per_run)
    assert row.perf_per_dollar is None
    one = next(r for r in report.rows if r.system == "1xBM.GPU.B200.8")
    assert one.cost_per_run == pytest.approx(128 * 84.83408541666665 / 60)


@pytest.mark.corpus
def test_oracle_v51_cost_from_the_logs(corpus: Path) -> None:
    """The issue's acceptance: `cost` over the v5.1 Oracle folder prints each result's cost."""
    folder = corpus / "v5.1" / "Oracle"
    result = CliRunner().invoke(cli, ["cost", str(folder), "--prices", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for system in ("1xBM.GPU.B200.8", "2xBM.GPU.B200.8", "8xBM.GPU.B200.8", "9xBM.GPU.B200.8"):
        assert any(system in line and "$" in line for line in lines), system
    assert "$1,060" in result.stdout  # 9 instances × $128/h × 55.22 min


def test_purchase_price_amortized_plus_energy_by_hand() -> None:
    dgx = Scored(
        "NVIDIA",
        "dgxa100_ngc21.05_mxnet",
        "x",
        "resnet",
        30.0,
        ruleset="1.0.0",
        energy_j=3.6e6 * 2.5,  # 2.5 kWh per run
        energy_method="official",
    )
    assumed = Assumptions(life_years=5, utilization=0.5, kwh_price=0.2, pue=1.2)
    (row,) = compare([dgx], load_catalog(SAMPLE), assumptions=assumed).rows
    hardware = 300000 / (5 * 8766 * 0.5) * 0.5  # $ per hour of life × 0.5 h
    assert row.hardware_cost == pytest.approx(hardware)
    assert row.energy_kwh == pytest.approx(2.5 * 1.2)
    assert row.energy_cost == pytest.approx(2.5 * 1.2 * 0.2)
    assert row.total_per_run == pytest.approx(hardware + 0.6)
    # The amortization was stated (5 years at 50 %): the purchase price's cost per run.
    assert row.cost_per_run == pytest.approx(hardware) and row.cost_per_run_note == ""
    # Without a price per kWh the energy is shown but not in the total.
    (bare,) = compare([dgx], load_catalog(SAMPLE)).rows
    assert bare.energy_cost is None and bare.total_per_run == pytest.approx(
        300000 / (4 * 8766 * 0.8) * 0.5
    )
    assert "no --kwh-price" in bare.energy_note


def test_hourly_price_includes_the_electricity() -> None:
    cloud = Scored("Oracle", "2xBM.GPU.B200.8", "BM.GPU.B200.8", "flux1", 60.0, energy_j=3.6e7)
    (row,) = compare([cloud], load_catalog(SAMPLE), assumptions=Assumptions(kwh_price=0.1)).rows
    assert row.energy_kwh == pytest.approx(10.0) and row.energy_cost is None
    assert row.total_per_run == pytest.approx(2 * 128.0)
    assert "part of the hourly price" in row.energy_note


def test_instances_from_number_of_nodes_for_hourly_prices_without_a_prefix() -> None:
    cloud = Scored("Oracle", "oci-b200", "BM.GPU.B200.8", "flux1", 30.0, nodes=4)
    (row,) = compare([cloud], load_catalog(SAMPLE)).rows
    assert (row.instances, row.instances_from) == (4, "number_of_nodes")
    assert row.cost_per_run == pytest.approx(4 * 128 / 2)


def test_scale_plot_one_benchmark(tmp_path: Path) -> None:
    scores = [
        Scored("Oracle", f"{n}xBM.GPU.B200.8", "BM.GPU.B200.8", "flux1", 200.0 / n**0.8)
        for n in (1, 2, 9)
    ]
    scores = [replace(s, accelerators=8 * int(s.system[0])) for s in scores]
    report = compare(scores, load_catalog(SAMPLE))
    render_scale(report, tmp_path / "scale.svg")
    assert b"cost per run against scale" in (tmp_path / "scale.svg").read_bytes()
    other = Scored("Oracle", "1xBM.GPU.B200.8", "BM.GPU.B200.8", "llama31_8b", 80.0)
    with pytest.raises(CostError, match="one benchmark"):
        render_scale(compare([*scores, other], load_catalog(SAMPLE)), tmp_path / "x.png")


def run(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["cost", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.corpus
def test_whole_org_folders_are_grouped_not_refused(corpus: Path) -> None:
    """`cost ORG_A ORG_B --prices F` compares like with like on its own."""
    v10 = corpus / "v1.0"
    args = [str(v10 / "Graphcore"), str(v10 / "NVIDIA"), "--prices", str(SAMPLE)]
    code, out, err = run([*args, "--format", "json", "--baseline", "DGX A100 640GB"])
    assert code == 1, err  # unpriced IPU-POD64 rows: listed, not an abort
    doc = json.loads(out)
    rows = doc["rows"]
    assert {(r["division"], r["benchmark"]) for r in rows} >= {
        ("closed", "bert"),
        ("open", "bert"),
        ("closed", "resnet"),
    }
    unpriced = [r for r in rows if r["price"] is None]
    assert {r["system"] for r in unpriced} == {
        "ipu-pod64-TF1",
        "ipu-pod64-POPART-closed",
        "ipu-pod64-POPART-open",
    }
    assert doc["note"].count("no price for") == 1  # one note naming them all
    # Ratios only within a group: the open BERT row has none, closed BERT has one.
    open_bert = next(r for r in rows if r["system"] == "ipu-pod16-POPART-open")
    closed_bert = next(r for r in rows if r["system"] == "ipu-pod16-POPART-closed")
    assert open_bert["ratio_to_baseline"] is None
    assert closed_bert["ratio_to_baseline"] == pytest.approx(1.26, abs=0.005)
    assert "no baseline result in open" in doc["note"]
    # Filters.
    code, out, _ = run([*args, "--format", "json", "--division", "open", "--benchmark", "bert"])
    assert {(r["division"], r["benchmark"]) for r in json.loads(out)["rows"]} == {("open", "bert")}
    # Without a baseline: no refusal, no ratio; the table prints.
    code, out, err = run(args)
    assert code == 1 and "no price" in out and "refusing" not in err


@pytest.mark.corpus
def test_asked_for_cross_division_baseline_is_refused_without_allow_mixed(corpus: Path) -> None:
    v10 = corpus / "v1.0"
    args = [
        str(v10 / "Graphcore/results/ipu-pod16-POPART-open"),
        str(v10 / "NVIDIA/results/dgxa100_ngc21.05_pytorch/bert"),
        "--prices", str(SAMPLE), "--baseline", "DGX A100 640GB",
    ]  # fmt: skip
    code, _, err = run(args)
    assert code == 2 and "different divisions: closed, open" in err
    code, out, _ = run([*args, "--allow-mixed", "--format", "json"])
    assert code == 0
    pod = next(r for r in json.loads(out)["rows"] if r["division"] == "open")
    assert pod["ratio_to_baseline"] is not None


@pytest.mark.corpus
def test_energy_from_real_power_logs_priced_per_kwh(corpus: Path, tmp_path: Path) -> None:
    """v5.0 Lenovo bert: the energy score (1,949,215.94 J, the official power score) at
    $0.15/kWh and PUE 1.3, with a hypothetical purchase price (test only)."""
    catalog = tmp_path / "hypothetical.csv"
    catalog.write_text(
        "system,aliases,price,currency,kind,includes,source,date\n"
        "SR780a V3,SR780aV3-8xB200_SXM_180GB,400000,USD,estimated,server,"
        "hypothetical price for a test,2025-06-01\n"
    )
    folder = corpus / "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/bert"
    args = [str(folder), "--prices", str(catalog), "--kwh-price", "0.15", "--pue", "1.3"]
    code, out, err = run([*args, "--format", "json"])
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    kwh = 1949215.9387540054 / 3.6e6 * 1.3
    assert row["energy_kwh"] == pytest.approx(kwh, rel=1e-9)
    assert row["energy_cost"] == pytest.approx(kwh * 0.15, rel=1e-9)
    hardware = 400000 / (4 * 8766 * 0.8) * row["minutes"] / 60
    assert row["total_per_run"] == pytest.approx(hardware + kwh * 0.15)
    # Unpriced, the energy per run is still shown.
    code, out, _ = run([str(folder), "--prices", str(SAMPLE), "--format", "json"])
    (row,) = json.loads(out)["rows"]
    assert code == 1 and row["price"] is None
    assert row["energy_kwh"] == pytest.approx(1949215.9387540054 / 3.6e6)


@pytest.mark.corpus
def test_a_multi_node_cloud_folder_costs_its_number_of_nodes_from_the_logs(
    corpus: Path, tmp_path: Path
) -> None:
    """v5.1 Oracle's 8-node B200 cluster filed as `oci-b200-cluster` (no `8x` in the
    folder name): its description's number_of_nodes (8) is the instance count. The
    scores never carried it, so one node was priced and perf/$ came out 8 times high."""
    import shutil

    source = corpus / "v5.1" / "Oracle"
    org = tmp_path / "v5.1" / "Oracle"
    shutil.copytree(source / "results" / "8xBM.GPU.B200.8", org / "results" / "oci-b200-cluster")
    (org / "systems").mkdir(parents=True)
    shutil.copy(
        source / "systems" / "8xBM.GPU.B200.8.json", org / "systems" / "oci-b200-cluster.json"
    )
    code, out, err = run([str(org), "--prices", str(SAMPLE), "--format", "json"])
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    assert (row["instances"], row["instances_from"]) == (8, "number_of_nodes")
    assert row["hardware_cost"] == pytest.approx(128.0 * 8 * row["minutes"] / 60, rel=1e-9)
    code, out, err = run([str(org), "--prices", str(SAMPLE), "--format", "csv"])
    header = out.splitlines()[0].split(",")
    assert "instances_from" in header


def test_electricity_price_named_where_the_catalog_gives_it(tmp_path: Path) -> None:
    """The assumptions said "× not given (--kwh-price, else the catalog's kwh_price)"
    when every catalog row gives a kwh_price."""
    catalog = tmp_path / "prices.csv"
    rows = SAMPLE.read_text().splitlines()
    catalog.write_text(
        "\n".join([rows[0] + ",kwh_price", *(row + ",0.15" for row in rows[1:] if row)]) + "\n"
    )
    dgx = Scored("NVIDIA", "dgxa100_ngc21.05_mxnet", "x", "resnet", 30.0, ruleset="1.0.0")
    dgx = replace(dgx, energy_j=3.6e6 * 2.0, energy_method="official")
    report = compare([dgx], load_catalog(catalog))
    said = " ".join(report.assumption_lines())
    assert "not given" not in said and "each system's catalog kwh_price" in said
    assert report.rows[0].energy_cost == pytest.approx(2.0 * 0.15)
    bare = compare([dgx], load_catalog(SAMPLE))
    assert "not given" in " ".join(bare.assumption_lines())


@pytest.mark.corpus
def test_one_unit_per_column_over_purchase_and_hourly_prices(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    # v5.1 Oracle (hourly) and v1.0 NVIDIA DGX A100 (purchase) in one report: each
    # column holds one unit; the CSV says which.
    hourly = oracle_scores(corpus, oracle, "Oracle")
    dgx = Scored("NVIDIA", "dgxa100_ngc21.05_mxnet", "x", "resnet", 28.77, ruleset="1.0.0")
    report = compare([*hourly, dgx], load_catalog(SAMPLE))
    purchase = [r for r in report.rows if r.price_kind != "cloud-hourly"]
    rented = [r for r in report.rows if r.price_kind == "cloud-hourly"]
    assert len(purchase) == 1 and len(rented) == 4
    assert purchase[0].perf_per_dollar == pytest.approx(1440e6 / (28.77 * 300000))
    assert purchase[0].runs_per_1k is None
    assert all(r.perf_per_dollar is None and r.runs_per_1k for r in rented)
    from mllog_check.cost.output import csv_rows, table_cells

    header, *body = csv_rows(report)
    note = body[0][header.index("note")]
    assert "perf_per_dollar is in runs/day per $1M of purchase price" in note
    assert "runs_per_1k is in runs per $1k of rental" in note
    table_header, _ = table_cells(report)
    assert [h for h in table_header if h.startswith("perf/$")] == [
        "perf/$ (runs/day per $1M)",
        "perf/$ (runs per $1k)",
    ]


def test_purchase_cost_per_run_needs_a_stated_amortization(tmp_path: Path) -> None:
    dgx = Scored("NVIDIA", "dgxa100_ngc21.05_mxnet", "x", "resnet", 30.0, ruleset="1.0.0")
    (bare,) = compare([dgx], load_catalog(SAMPLE)).rows
    assert bare.cost_per_run is None
    assert bare.cost_per_run_note.startswith("purchase price without a stated amortization")
    assert bare.cost_per_run_note.endswith("4 years at 80%")
    assert bare.hardware_cost == pytest.approx(300000 / (4 * 8766 * 0.8) * 0.5)
    # The catalog states it: life_years and utilization are catalog fields.
    text = SAMPLE.read_text(encoding="utf-8").splitlines()
    header = text[0] + ",life_years,utilization"
    rows = [line + (",5,0.5" if line.startswith("DGX A100") else ",,") for line in text[1:]]
    stated = tmp_path / "stated.csv"
    stated.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    (row,) = compare([dgx], load_catalog(stated)).rows
    assert row.cost_per_run == pytest.approx(300000 / (5 * 8766 * 0.5) * 0.5)
    assert row.cost_per_run_note == ""
    # The user's --utilization overrides the catalog's.
    (mine,) = compare([dgx], load_catalog(stated), assumptions=Assumptions(utilization=1.0)).rows
    assert mine.cost_per_run == pytest.approx(300000 / (5 * 8766 * 1.0) * 0.5)


@pytest.mark.corpus
def test_a_purchase_price_matched_by_pattern_to_a_cluster_warns(
    corpus: Path, tmp_path: Path
) -> None:
    # v3.1 Intel-HabanaLabs: HLS-Gaudi2-PT is one node, HLS-Gaudi2-N8-PT eight, -N32 32
    # and -N48 48. One server's purchase price given by a pattern prices one server.
    catalog = tmp_path / "gaudi.yaml"
    catalog.write_text(
        "prices:\n"
        "  - system: HLS-Gaudi2\n"
        "    aliases: ['HLS-Gaudi2-*']\n"
        "    price: 250000\n    currency: USD\n    kind: estimated\n"
        "    includes: one 8-accelerator server\n    source: test\n    date: 2024-01-01\n",
        encoding="utf-8",
    )
    args = ["cost", str(corpus / "v3.1" / "Intel-HabanaLabs"), "--prices", str(catalog)]
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    note = json.loads(result.stdout)["note"]
    for system in ("HLS-Gaudi2-N8-PT", "HLS-Gaudi2-N32-PT", "HLS-Gaudi2-N48-PT"):
        assert f"{system} " in note and "matched it by pattern" in note, system
    assert "HLS-Gaudi2-PT " not in note and "HLS-Gaudi2-TF " not in note  # one node
    assert "but it ran on 8 nodes: the price is of one system" in note
    assert note.count("matched it by pattern") == 3


@pytest.mark.corpus
def test_the_reports_cost_section_keeps_each_rows_unit(corpus: Path, tmp_path: Path) -> None:
    from mllog_check.html_report import build_report

    out = tmp_path / "oracle.html"
    result = build_report([str(corpus / "v5.1" / "Oracle")], out, prices=[str(SAMPLE)], jobs=1)
    (section,) = result.page.cost
    assert section["unit"] == "runs per $1k"
    charts = {c.id.split("-")[1] for c in section["charts"]}
    assert "runs_per_1k" in charts and "perf_per_dollar" not in charts
    html = out.read_text(encoding="utf-8")
    for row in section["rows"]:  # the hourly rows' perf/$ is in the table, not empty
        assert row.runs_per_1k and f'<td class="num">{row.runs_per_1k:.4g}' in html


def _cluster_of(corpus: Path, tmp_path: Path, nodes: int, faster: float) -> Path:
    """v1.0 Graphcore and NVIDIA copied, with an NVIDIA ResNet result planted on
    ``nodes`` DGX A100s: the mxnet result's logs, each run ``faster`` times shorter."""
    import shutil

    round_dir = tmp_path / "v1.0"
    for org in ("Graphcore", "NVIDIA"):
        shutil.copytree(corpus / "v1.0" / org, round_dir / org)
    nvidia = round_dir / "NVIDIA"
    name = f"dgxa100_n{nodes}_ngc21.05_mxnet"
    desc = json.loads((nvidia / "systems" / "dgxa100_ngc21.05_mxnet.json").read_text())
    desc.update(number_of_nodes=str(nodes), system_name=name)
    (nvidia / "systems" / f"{name}.json").write_text(json.dumps(desc), encoding="utf-8")
    source = nvidia / "results" / "dgxa100_ngc21.05_mxnet" / "resnet"
    target = nvidia / "results" / name / "resnet"
    target.mkdir(parents=True)
    for log in sorted(source.glob("result_*.txt")):
        lines, start = [], None
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.startswith(":::MLLOG "):
                record = json.loads(line[len(":::MLLOG ") :])
                if start is None and record["key"] == "run_start":
                    start = record["time_ms"]
                if start is not None and record["time_ms"] > start:
                    record["time_ms"] = start + int((record["time_ms"] - start) / faster)
                line = ":::MLLOG " + json.dumps(record)
            lines.append(line)
        (target / log.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return round_dir


@pytest.mark.corpus
def test_a_pattern_purchase_price_counts_a_clusters_nodes(corpus: Path, tmp_path: Path) -> None:
    # Was: `dgxa100*` gave one DGX A100's price to an 8-node result, which then had
    # the best perf/$ and became the baseline in silence (IPU-POD16 ResNet 1.55 -> 0.26).
    nodes = 8
    round_dir = _cluster_of(corpus, tmp_path, nodes, faster=6.0)
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    catalog = tmp_path / "pattern.csv"
    catalog.write_text(
        "\n".join(re.sub(r"^(DGX A100 640GB),[^,]*,", r"\1,dgxa100*,", line) for line in lines)
        + "\n",
        encoding="utf-8",
    )
    args = ["cost", str(round_dir / "Graphcore"), str(round_dir / "NVIDIA")]
    args += ["--benchmark", "resnet", "--prices", str(catalog), "--baseline", "DGX A100 640GB"]
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    data = json.loads(result.stdout)
    rows = {r["system"]: r for r in data["rows"] if r["division"] == "closed"}
    cluster = rows[f"dgxa100_n{nodes}_ngc21.05_mxnet"]
    assert cluster["instances"] == nodes and "number_of_nodes" in cluster["instances_from"]
    assert cluster["perf_per_dollar"] == pytest.approx(
        1440e6 / (cluster["minutes"] * nodes * cluster["price"])
    )
    assert f"it ran on {nodes} nodes" in data["note"] and f"count {nodes} systems" in data["note"]
    # The baseline is the one-node DGX, as with the catalog naming each folder: the
    # README's 1.55 stands.
    single = rows["dgxa100_ngc21.05_mxnet"]
    assert single["ratio_to_baseline"] == pytest.approx(1.0)
    pod = rows["ipu-pod16-TF1"]
    named = CliRunner().invoke(
        cli,
        [*args[:-4], "--prices", str(SAMPLE), "--baseline", "DGX A100 640GB", "--format", "json"],
    )
    by_name = {r["system"]: r for r in json.loads(named.stdout)["rows"]}
    assert pod["ratio_to_baseline"] == pytest.approx(by_name["ipu-pod16-TF1"]["ratio_to_baseline"])
    assert round(pod["ratio_to_baseline"], 2) == 1.55
