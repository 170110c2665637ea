"""``mllog-check trends``: best result per benchmark per round, against the oracle.

The expected lines are computed here from the oracle's official scores and the
system descriptions read as JSON, with the renames written out by hand (RetinaNet was
published in ``ssd/`` up to v4.1, R-GAT in ``gnn/``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import read_oracle

from mllog_check.cli import cli
from mllog_check.results.trends import best_per_round

ROUNDS = ("v4.0", "v4.1", "v5.0", "v5.1")
RENAMED = {"ssd": "retinanet", "gnn": "rgat"}  # v4.x folder -> v5.x name


def _expected(corpus: Path, oracle: Path, scale: int | None) -> dict[tuple[str, str], float]:
    best: dict[tuple[str, str], float] = {}
    for version in ROUNDS:
        for row in read_oracle(oracle, f"scores_{version}.csv"):
            if not row["official_score_min"] or row["rcp_status"] not in ("Pass", ""):
                continue
            path = corpus / version / row["org"] / "systems" / f"{row['system']}.json"
            desc = json.loads(path.read_text(encoding="utf-8"))
            count = int(desc["number_of_nodes"]) * int(desc["accelerators_per_node"])
            if scale is not None and count != scale:
                continue
            key = (RENAMED.get(row["benchmark"], row["benchmark"]), version)
            minutes = float(row["official_score_min"])
            best[key] = min(best.get(key, minutes), minutes)
    return best


def _run(corpus: Path, *extra: str) -> list[dict[str, object]]:
    args = ["trends", *(str(corpus / v) for v in ROUNDS), "--format", "json", *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


@pytest.mark.corpus
def test_best_per_round_matches_the_official_scores(corpus: Path, oracle: Path) -> None:
    rows = _run(corpus, "--accelerators", "8")
    for scale, wanted in (("all", None), ("8", 8)):
        got = {
            (str(r["benchmark"]), str(r["round"])): float(str(r["minutes"]))
            for r in rows
            if r["scale"] == scale
        }
        expected = _expected(corpus, oracle, wanted)
        assert set(got) == set(expected)
        for key, minutes in expected.items():
            assert got[key] == pytest.approx(minutes, rel=2e-3), key
    # renamed benchmarks keep one line across the four rounds
    rgat = [r for r in rows if r["benchmark"] == "rgat" and r["scale"] == "all"]
    assert [(r["round"], r["published_as"]) for r in rgat] == [
        ("v4.0", "gnn"),
        ("v4.1", "gnn"),
        ("v5.0", "rgat"),
        ("v5.1", "rgat"),
    ]
    speedup = rgat[1]["speedup"]
    assert speedup == pytest.approx(float(str(rgat[0]["minutes"])) / float(str(rgat[1]["minutes"])))


@pytest.mark.corpus
def test_filters_and_formats(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    rows = _run(corpus, "--benchmark", "llama2_70b_lora", "--accelerator", "B200")
    assert {r["benchmark"] for r in rows} == {"llama2_70b_lora"}
    assert {r["round"] for r in rows} == {"v5.0", "v5.1"}  # no B200 before v5.0
    out = tmp_path / "t.parquet"
    args = ["trends", str(corpus / "v5.1"), "--format", "parquet", "-o", str(out)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    import pandas as pd

    frame = pd.read_parquet(out)
    csv_text = CliRunner().invoke(cli, ["trends", str(corpus / "v5.1"), "--format", "csv"])
    assert csv_text.stdout.splitlines()[0].startswith("benchmark,division,scale,round")
    # the Parquet table is the CSV one, typed: the same lines, minutes as floats
    csv_frame = pd.read_csv(io.StringIO(csv_text.stdout))
    assert str(frame["minutes"].dtype) == "float64" and len(frame) == len(csv_frame) > 0
    assert list(frame["benchmark"]) == list(csv_frame["benchmark"])
    official = {b for (b, version) in _expected(corpus, oracle, None) if version == "v5.1"}
    assert official <= set(frame["benchmark"])
    none = CliRunner().invoke(cli, ["trends", str(corpus / "v5.1"), "--accelerator", "TPU*"])
    assert none.exit_code == 2 and "no result matches" in none.stderr
    assert io.StringIO(none.stdout).read() == ""


def test_rows_skip_invalid_and_rcp_failures() -> None:
    from types import SimpleNamespace

    def score(minutes: float | None, **kw: object) -> SimpleNamespace:
        base: dict[str, object] = dict(
            org="A",
            system="s",
            system_name=None,
            benchmark="gnn",
            division="closed",
            ruleset="4.0.0",
            minutes=minutes,
            valid=minutes is not None,
            rcp_verdict="Pass",
            accelerator_model="X",
            accelerators=8,
        )
        return SimpleNamespace(**(base | kw))

    rows = best_per_round(
        [
            score(10.0),
            score(5.0, rcp_verdict="Fail"),  # shown, but does not count
            score(12.0, rcp_verdict="Fail"),  # slower than the best that counts: left out
            score(None),
            score(8.0, ruleset="5.0.0", benchmark="rgat", accelerators=16),
        ],
        accelerators=8,
    )
    assert [(r.benchmark, r.scale, r.round, r.minutes, r.excluded) for r in rows] == [
        ("rgat", "all", "v4.0", 5.0, "RCP Fail"),
        ("rgat", "all", "v4.0", 10.0, ""),
        ("rgat", "all", "v5.0", 8.0, ""),
        ("rgat", "8", "v4.0", 5.0, "RCP Fail"),
        ("rgat", "8", "v4.0", 10.0, ""),
    ]
    assert [r.results for r in rows[:3]] == [1, 1, 1]  # results that count
    assert rows[2].speedup == pytest.approx(5.0 / 8.0)  # over the fastest published


def _trends(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["trends", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


@pytest.mark.corpus
def test_an_excluded_published_result_is_shown_with_its_reason(corpus: Path) -> None:
    # v2.0 Google's RetinaNet (published in ssd/, 2.34 min) fails this tool's RCP check
    # (interpolated between batch sizes); it is the round's published record all the same.
    rows = _trends(str(corpus / "v2.0"), str(corpus / "v3.0"), "--benchmark", "retinanet")
    v20 = [r for r in rows if r["round"] == "v2.0"]
    assert [(r["org"], r["published_as"]) for r in v20] == [("Google", "ssd")]
    assert float(str(v20[0]["minutes"])) == pytest.approx(2.3429, abs=1e-3)
    assert str(v20[0]["excluded"]).startswith("RCP Interp. Fail: olympic mean 9.0000 epochs")
    (v30,) = [r for r in rows if r["round"] == "v3.0"]
    assert v30["excluded"] == "" and v30["org"] == "GIGABYTE"
    expected = float(str(v20[0]["minutes"])) / float(str(v30["minutes"]))
    assert v30["speedup"] == pytest.approx(expected)
    text = CliRunner().invoke(cli, ["trends", str(corpus / "v2.0"), "--benchmark", "retinanet"])
    assert "[1]" in text.stdout
    assert (
        "[1] v2.0 Google/cloud-tpu-v4-4096-TF retinanet: excluded: RCP Interp. Fail" in text.stdout
    )


@pytest.mark.corpus
def test_open_speedups_between_different_systems_only_when_asked(corpus: Path) -> None:
    rounds = [str(corpus / v) for v in ("v1.0", "v1.1", "v2.0", "v2.1")]
    plain = _trends(*rounds, "--division", "open", "--benchmark", "bert")
    asked = _trends(*rounds, "--division", "open", "--benchmark", "bert", "--open-speedups")
    # Graphcore IPU-POD64 (v1.0) -> IPU-POD128 (v1.1) -> MosaicML 8xA100 (v2.1)
    assert [r["system_name"] for r in plain] == [r["system_name"] for r in asked]
    assert len(plain) == 3
    assert [r["speedup"] for r in plain] == [None, None, None]
    assert asked[1]["speedup"] == pytest.approx(
        float(str(asked[0]["minutes"])) / float(str(asked[1]["minutes"]))
    )


@pytest.mark.corpus
def test_a_best_republished_from_an_earlier_round_names_it(corpus: Path, tmp_path: Path) -> None:
    # A real v4.0 org published again, unchanged, as a v4.1 org: the v4.1 best holds the
    # v4.0 runs (the same run windows).
    import shutil

    org = corpus / "v4.0" / "GigaComputing"
    for version in ("v4.0", "v4.1"):
        shutil.copytree(org, tmp_path / version / "GigaComputing")
    rows = _trends(str(tmp_path / "v4.0"), str(tmp_path / "v4.1"))
    later = [r for r in rows if r["round"] == "v4.1"]
    assert later
    for row in later:
        assert row["reused_from"] == f"v4.0/GigaComputing/{row['system']}", row
    assert {r["reused_from"] for r in rows if r["round"] == "v4.0"} == {""}
    real = _trends(str(corpus / "v4.0"), str(corpus / "v4.1"))
    assert {r["reused_from"] for r in real} == {""}


@pytest.mark.corpus
def test_mlperf_hpc_rounds_follow_the_round_registry(corpus: Path) -> None:
    """HPC rounds in the registry's order (never by name: ``hpc-v3.0`` sorts as a round),
    whatever order the folders are given in; each speed-up is over the round before."""
    from mllog_check.rounds import all_rounds, parse_round

    folders = sorted((p for p in corpus.iterdir() if p.name.startswith("hpc-")), reverse=True)
    assert len(folders) >= 3
    result = CliRunner().invoke(cli, ["trends", *map(str, folders), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    order = [r.version for r in all_rounds()]
    lines: dict[tuple[str, str, str], list[dict[str, object]]] = {}
    for row in rows:
        lines.setdefault((str(row["benchmark"]), str(row["division"]), str(row["scale"])), [])
        lines[(str(row["benchmark"]), str(row["division"]), str(row["scale"]))].append(row)
    assert any(len(line) >= 3 for line in lines.values())
    for (_, division, _), line in lines.items():
        places = [order.index(parse_round(str(r["round"])).version) for r in line]
        assert places == sorted(places), line
        if division != "closed":
            continue  # open speed-ups only between the same system
        first: dict[str, float] = {}  # round -> its first row shown (the fastest)
        for row in line:
            first.setdefault(str(row["round"]), float(str(row["minutes"])))
        shown = list(first)
        for row in line:
            at = shown.index(str(row["round"]))
            ratio = first[shown[at - 1]] / float(str(row["minutes"])) if at else None
            assert row["speedup"] == pytest.approx(ratio), row


@pytest.mark.corpus
def test_trends_reads_a_round_folder_name_as_report_does(corpus: Path, tmp_path: Path) -> None:
    """A folder whose name is a round's with a suffix (``v4.1-full``) names no round:
    ``report`` refuses it, and so does ``trends`` (no reading from content for one and
    not the other); named as the round, both read it."""
    import shutil

    folder = sorted((corpus / "v4.1").glob("*/results/*/*/result_*.txt"))[0].parent
    org = folder.parents[2]
    for name in ("v4.1-full", "v4.1"):
        copy = tmp_path / name / org.name
        shutil.copytree(folder, copy / "results" / folder.parent.name / folder.name)
        shutil.copytree(org / "systems", copy / "systems")
    runner = CliRunner()
    out = str(tmp_path / "r.html")
    refused = [
        runner.invoke(cli, ["trends", str(tmp_path / "v4.1-full")]),
        runner.invoke(cli, ["report", str(tmp_path / "v4.1-full"), "--out", out]),
    ]
    for result in refused:
        assert result.exit_code == 2 and "cannot tell the round" in result.output, result.output
    read = runner.invoke(cli, ["trends", str(tmp_path / "v4.1"), "--format", "json"])
    assert read.exit_code == 0, read.output
    assert {r["round"] for r in json.loads(read.stdout)} == {"v4.1"}
