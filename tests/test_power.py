"""Power logs and energy to train (mllog_check.power, docs/power.md).

Energies are compared with the official result summarizer (mlperf-logging 4.1.68, an
oracle only): its published scores over the corpus (v5.0 Lenovo) and its own
functions run on a copy of the hand-made fixture (fixtures/power/good: two nodes and
a switch per run).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, read_oracle

from mllog_check import parse_file
from mllog_check.power import (
    FROM_READINGS,
    check_benchmark_folder,
    check_power,
    olympic_energy,
    timing,
)
from mllog_check.problems import Problem

GOOD = FIXTURES / "power" / "good" / "resnet"
# The hand-made fixtures read every 20 s to stay small, so the sampling rules (MLE035,
# MLE036: once per second, at least 60 readings) fire on them; their tests are below.
SAMPLING = {"MLE035", "MLE036"}


def _others(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.rule not in SAMPLING]


def _energy_score(folder: Path, drop: int = 1) -> tuple[float | None, list[float]]:
    files = sorted(folder.glob("result_*.txt"))
    runs = [timing(parse_file(str(p))) for p in files]
    report = check_power(runs, str(folder))
    energies = [report.energies[r.path].joules for r in runs]
    assert all(e is not None for e in energies)
    minutes = [(r.stop_ms - r.start_ms) / 60000 for r in runs]  # type: ignore[operator]
    factor = 1.0
    if (folder / "scaling.json").is_file():
        factor = json.loads((folder / "scaling.json").read_text())["scaling_factor"]
    score = olympic_energy(energies, minutes, drop)  # type: ignore[arg-type]
    return (None if score is None else score * factor), energies  # type: ignore[misc]


@pytest.mark.corpus
def test_energy_equals_the_official_power_score_on_every_corpus_power_result(
    corpus: Path, oracle: Path
) -> None:
    rows = [r for r in read_oracle(oracle, "scores_v5.0.csv") if r["official_power"]]
    assert len(rows) == 4
    for row in rows:
        folder = corpus / "v5.0" / row["org"] / "results" / row["system"] / row["benchmark"]
        score, _ = _energy_score(folder)
        assert row["official_power_unit"] == "J"
        assert score == pytest.approx(float(row["official_power"]), rel=1e-9), row["benchmark"]


@pytest.mark.corpus
def test_corpus_power_logs_parse_as_the_official_parser_reads_them(corpus: Path) -> None:
    from mlperf_logging.compliance_checker.mlp_parser import parse_file as official

    files = sorted((corpus / "v5.0").glob("*/results/*/*/power/result_*/*.txt"))
    assert len(files) >= 35
    for path in files:
        ours = parse_file(str(path))
        theirs, failed = official(str(path), "5.0.0")
        assert not ours.problems and not failed
        assert [(r.key, r.timestamp_ms, r.value) for r in ours.records] == [
            (t.key, t.timestamp, t.value["value"]) for t in theirs
        ]


@pytest.mark.corpus
def test_corpus_power_results_have_no_power_problems(corpus: Path) -> None:
    folders = sorted({p.parent for p in (corpus / "v5.0").glob("*/results/*/*/power")})
    assert len(folders) == 4
    for folder in folders:
        assert check_benchmark_folder(str(folder)).problems == []


def _official_summarizer(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, float]:
    """The official summarizer's strong-scaling score with power, on ``folder``.

    Its per-file compliance gate is replaced by a plain parse: the fixture's result
    files are hand-made, not compliant logs of a round; the power method is untouched.
    """
    from mlperf_logging.compliance_checker.mlp_parser import parse_file as official
    from mlperf_logging.result_summarizer import result_summarizer as rs

    monkeypatch.setattr(rs, "_read_result_file", lambda f, usage, ruleset: official(f, ruleset)[0])
    _, power_runs, _, power, _ = rs._compute_strong_score_standalone(
        "resnet", "acme-8x", True, str(folder), "training", "5.0.0", return_full_scores=True
    )
    return power_runs, power


def test_two_nodes_and_a_switch_equal_the_official_summarizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "resnet"
    shutil.copytree(GOOD, copy)  # the official tool may write into the tree it reads
    official_runs, official_score = _official_summarizer(copy, monkeypatch)
    score, energies = _energy_score(copy)
    files = sorted(copy.glob("result_*.txt"))
    assert [official_runs[str(p)] for p in files] == pytest.approx(energies, rel=1e-12)
    assert score == pytest.approx(official_score, rel=1e-12)
    # Two nodes and a switch per run; the switch adds 450 W over the run.
    report = check_benchmark_folder(str(GOOD))
    assert _others(report.problems) == []
    assert {(e.nodes, e.switches) for e in report.energies.values()} == {(2, 1)}


def test_a_hand_computed_run(tmp_path: Path) -> None:
    # One node, readings 1000 W then 3000 W over a 20 s window, a 10 s run: the mean
    # power 2000 W × 0.5 efficiency × 10 s = 10 kJ; a switch of 100 W adds 1 kJ.
    run = tmp_path / "b"
    (run / "power" / "result_0").mkdir(parents=True)
    (run / "result_0.txt").write_text(
        _mllog(1000, "run_start", None) + _mllog(11000, "run_stop", None, status="success")
    )
    (run / "power" / "result_0" / "node_0.txt").write_text(
        _mllog(0, "power_measurement_start", None)
        + _mllog(0, "conversion_eff", 0.5)
        + _mllog(10000, "power_reading", 1000.0)
        + _mllog(20000, "power_reading", 3000.0)
        + _mllog(20000, "power_measurement_stop", None)
    )
    (run / "power" / "result_0" / "sw_0.txt").write_text(_mllog(0, "interconnect_power_est", 100.0))
    report = check_benchmark_folder(str(run))
    (energy,) = report.energies.values()
    assert energy.joules == pytest.approx(10_000 + 1_000)
    assert {p.rule for p in _others(report.problems)} == {
        "MLE027"
    }  # the switch has no conversion_eff


def _mllog(t: int, key: str, value: object, **meta: object) -> str:
    payload = {"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME", "key": key}
    return ":::MLLOG " + json.dumps({**payload, "value": value, "metadata": meta}) + "\n"


def test_zero_length_window_is_an_error_and_still_gives_an_energy_from_readings() -> None:
    report = check_benchmark_folder(str(FIXTURES / "power" / "zero_window" / "resnet"))
    assert "MLE007" in {p.rule for p in report.problems}
    zero = next(e for p, e in report.energies.items() if p.endswith("result_2.txt"))
    good = next(
        e
        for p, e in check_benchmark_folder(str(GOOD)).energies.items()
        if p.endswith("result_2.txt")
    )
    assert zero.method == FROM_READINGS and zero.joules is not None and good.joules
    # The readings' mean over the run is close to the window's mean (the window adds 5 s
    # at each end, at other powers).
    assert zero.joules == pytest.approx(good.joules, rel=0.05)
    assert report.method == FROM_READINGS


def test_a_dropped_zero_window_run_leaves_the_score_official(tmp_path: Path) -> None:
    from mllog_check.results import compute_scores

    copy = tmp_path / "power" / "resnet"
    shutil.copytree(FIXTURES / "power" / "zero_window" / "resnet", copy)
    # Make the zero-window run the fastest, so the olympic mean drops it.
    (copy / "power" / "result_2").rename(copy / "power" / "tmp")
    (copy / "power" / "result_0").rename(copy / "power" / "result_2")
    (copy / "power" / "tmp").rename(copy / "power" / "result_0")
    (score,) = compute_scores([str(copy.parent)], ruleset="1.0.0").scores
    assert score.energy_method == "official" and score.energy_j


BAD_LOGS = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty": lambda text: "",
    "binary": lambda text: "\x00\xff\xfe garbage \x00\n" * 3,
    "non-numeric": lambda text: text.replace('"value": 5', '"value": "5'),
    "bad-json": lambda text: text.replace("}", "", 3),
    "huge-number": lambda text: text.replace('"value": 5', '"value": 1e999'),
    "null-time": lambda text: text.replace('"time_ms": 1', '"time_ms": null, "x": 1'),
}


@pytest.mark.parametrize("name", sorted(BAD_LOGS))
def test_bad_power_logs_give_problems_never_a_traceback(tmp_path: Path, name: str) -> None:
    copy = tmp_path / "resnet"
    shutil.copytree(GOOD, copy)
    for path in sorted(copy.glob("power/result_*/node_0.txt")):
        path.write_text(BAD_LOGS[name](path.read_text()))
    report = check_benchmark_folder(str(copy))
    assert report.problems, name


def test_a_missing_node_is_reported_and_the_run_has_no_energy_beyond_its_logs(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "resnet"
    shutil.copytree(GOOD, copy)
    (copy / "power" / "result_1" / "node_1.txt").unlink()
    report = check_benchmark_folder(str(copy))
    assert [p.rule for p in _others(report.problems)] == ["MLE003"]
    assert "result_1" in _others(report.problems)[0].path


def test_score_has_energy_columns_per_run_and_per_result() -> None:
    from mllog_check.results import compute_scores

    report = compute_scores([str(GOOD.parent)], ruleset="1.0.0")
    (score,) = report.scores
    expected, energies = _energy_score(GOOD)
    assert score.valid and score.energy_method == "official"
    assert score.energy_j == pytest.approx(expected)
    assert [r.energy_j for r in report.runs] == pytest.approx(energies)
    assert _others(report.problems) == []


def test_score_without_power_logs_has_no_energy() -> None:
    from mllog_check.results import compute_scores

    report = compute_scores([str(FIXTURES / "score" / "olympic")], ruleset="1.0.0")
    assert all(s.energy_j is None and s.energy_method == "" for s in report.scores)


def test_score_cli_shows_energy_and_reports_power_problems() -> None:
    from click.testing import CliRunner

    from mllog_check.cli import cli

    runner = CliRunner()
    args = ["score", str(FIXTURES / "power" / "zero_window"), "--ruleset", "1.0.0"]
    result = runner.invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 1  # MLE007 is an error
    doc = json.loads(result.stdout)
    assert doc["scores"][0]["energy_method"] == FROM_READINGS
    assert all(r["energy_j"] > 0 for r in doc["runs"])
    assert "MLE007" in result.stderr
    table = runner.invoke(cli, [*args]).stdout
    assert "Energy to train" in table and "readings over the run" in table


def test_package_and_audit_show_energy_and_power_anomalies(tmp_path: Path) -> None:
    from mllog_check.submission.audit import run_audit, write_outputs
    from mllog_check.submission.package import check_package

    root = FIXTURES / "audit" / "power"
    report = check_package(root / "Acme", "1.0.0")
    (row,) = report.scores
    assert row["energy_method"] == FROM_READINGS and row["energy_j"] > 0
    assert {"MLE007", "MLE003", "MLE029", "MLE031", "MLE028"} <= {p.rule for p in report.problems}
    audit = run_audit(root, "1.0.0", jobs=1)
    kinds = {a.name for a in audit.anomalies}
    assert {
        "power-window-not-covering-run",
        "power-gap",
        "power-implausible-reading",
        "power-zero-window",
        "power-logs-incomplete",
    } <= kinds
    write_outputs(audit, tmp_path)
    header = (tmp_path / "scores.csv").read_text().splitlines()[0].split(",")
    assert {"energy_j", "energy_method"} <= set(header)


@pytest.mark.corpus
def test_score_stage_energy_equals_the_official_power_score(corpus: Path, oracle: Path) -> None:
    """The same agreement through the score stage (olympic order by its run times)."""
    from mllog_check.results.scores import score_set
    from mllog_check.results.tree import discover, load_system

    expected = {
        (r["system"], r["benchmark"]): float(r["official_power"])
        for r in read_oracle(oracle, "scores_v5.0.csv")
        if r["official_power"]
    }
    sets, _ = discover([str(corpus / "v5.0" / "Lenovo")])
    found = {}
    for result_set in sets:
        system, _ = load_system(result_set.system_json)
        results = [parse_file(f) for f in result_set.files]
        score, runs, problems = score_set(result_set, results, "5.0.0", system)
        assert not [p for p in problems if p.rule.startswith("MLE")]
        if score.energy_j is not None:
            found[(result_set.system, result_set.benchmark)] = score.energy_j
            assert score.energy_method == "official"
            assert all(r.energy_j for r in runs)
    assert found.keys() == expected.keys()
    for key, joules in found.items():
        assert joules == pytest.approx(expected[key], rel=1e-9), key


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    kind = rng.randrange(6)
    if kind == 0 and text:  # bit flip
        data = bytearray(text.encode())
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        return data.decode("utf-8", "replace")
    if kind == 1 and lines:  # delete a line
        del lines[rng.randrange(len(lines))]
    elif kind == 2 and lines:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 3:
        rng.shuffle(lines)
    elif kind == 4:
        return text[: rng.randrange(len(text) + 1)]
    else:  # a value of another type
        return text.replace(
            '"value": ',
            rng.choice(['"value": "x", "v": ', '"value": [', '"value": null, "v": ']),
            1,
        )
    return "".join(lines)


@pytest.mark.corpus
def test_mutated_real_power_logs_never_raise(corpus: Path, tmp_path: Path) -> None:
    source = corpus / "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/bert"
    rng = random.Random(20261130)
    for case in range(40):
        copy = tmp_path / f"c{case}" / "bert"
        shutil.copytree(source, copy)
        for node in sorted(copy.glob("power/result_*/node_0.txt"))[: rng.randrange(1, 4)]:
            node.write_text(_mutate(node.read_text(), rng))
        if rng.random() < 0.2:
            shutil.rmtree(copy / "power" / f"result_{rng.randrange(10)}")
        report = check_benchmark_folder(str(copy))  # must not raise
        assert all(p.rule[:3] in {"MLE", "MLS"} for p in report.problems)


@pytest.mark.corpus
def test_package_of_the_v50_lenovo_folder_shows_the_official_energy(
    corpus: Path, oracle: Path
) -> None:
    from mllog_check.submission.package import check_package

    expected = {
        (r["system"], r["benchmark"]): float(r["official_power"])
        for r in read_oracle(oracle, "scores_v5.0.csv")
        if r["org"] == "Lenovo" and r["official_power"]
    }
    report = check_package(corpus / "v5.0" / "Lenovo", "5.0.0")
    found = {(s["system"], s["benchmark"]): s["energy_j"] for s in report.scores if s["energy_j"]}
    assert found.keys() == expected.keys()
    for key, joules in found.items():
        assert joules == pytest.approx(expected[key], rel=1e-9)
    assert not [p for p in report.problems if p.rule.startswith("MLE")]


def test_v40_style_zero_window_official_divides_by_zero_ours_integrates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The published v4.0 pattern: start, conversion_eff and stop at the first line's time
    (metadata ""), readings after them. The official summarizer raises; we report MLE007
    and give the readings' mean power over the run times the time to train."""
    copy = tmp_path / "resnet"
    shutil.copytree(GOOD, copy)
    for node in sorted(copy.glob("power/result_*/node_*.txt")):
        lines = node.read_text().splitlines()
        t0 = json.loads(lines[0].split(" ", 1)[1])["time_ms"]
        head = [
            _mllog(t0, "power_measurement_start", "null").strip(),
            _mllog(t0, "conversion_eff", 1.0).strip(),
        ]
        readings = [x for x in lines if '"power_reading"' in x]
        tail = [_mllog(t0, "power_measurement_stop", "null").strip()]
        node.write_text(
            "\n".join(head + readings + tail).replace('"metadata": {}', '"metadata": ""') + "\n"
        )
    with pytest.raises(ZeroDivisionError):
        _official_summarizer(copy, monkeypatch)
    report = check_benchmark_folder(str(copy))
    assert {p.rule for p in _others(report.problems)} == {"MLE007"}
    assert report.method == FROM_READINGS
    good = check_benchmark_folder(str(GOOD)).energies
    for path, energy in report.energies.items():
        reference = good[path.replace(str(copy), str(GOOD))].joules
        assert energy.joules == pytest.approx(reference / 0.94, rel=0.03)  # no 0.94 efficiency


def test_audit_runs_table_has_each_runs_energy(tmp_path: Path) -> None:
    from mllog_check.submission.audit import run_audit

    audit = run_audit(FIXTURES / "audit" / "power", "1.0.0", jobs=1)
    energies = {Path(r["path"]).name: r["energy_j"] for r in audit.runs}
    assert len(energies) == 5 and all(e and e > 0 for e in energies.values())
    clean = run_audit(FIXTURES / "audit" / "clean", "1.0.0", jobs=1)
    assert all(r["energy_j"] is None for r in clean.runs)
