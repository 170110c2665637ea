"""Messages a submitter acts on before upload, each on a planted copy of a real corpus
org (v5.0 GigaComputing's closed rgat result): colour codes around the marker, a
misspelt system-description key, a division other than closed/open, the package's JUnit
verdict and classnames, SARIF's base URI, 1-based columns."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import has_module

from mllog_check.rules import check_file
from mllog_check.submission.package import check_package

SYSTEM = "G893-SD1_dgl"
CLI = [sys.executable, "-c", "from mllog_check.cli import main; main()"]
RGAT = f"results/{SYSTEM}/rgat"


def _org(tmp_path: Path, corpus: Path) -> Path:
    source = corpus / "v5.0/GigaComputing"
    org = tmp_path / "GigaComputing"
    shutil.copytree(source / "results" / SYSTEM, org / "results" / SYSTEM)
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / f"{SYSTEM}.json", org / "systems")
    return org


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, check=False, cwd=cwd)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("colour", "where"),
    [
        (lambda ln: ln.replace(":::MLLOG", "\x1b[1;32m:::MLLOG\x1b[0m"), "MLS001"),
        (lambda ln: "\x1b[32m" + ln.rstrip("\n") + "\x1b[0m\n", "MLS002"),  # the whole line
    ],
    ids=["around-the-marker", "around-the-line"],
)
def test_colour_codes_around_the_marker_are_named_with_how_to_strip_them(
    corpus: Path, tmp_path: Path, colour: Any, where: str
) -> None:
    original = corpus / "v5.0/GigaComputing" / RGAT / "result_0.txt"
    coloured = tmp_path / "result_0.txt"
    lines = original.read_text().splitlines(keepends=True)
    coloured.write_text("".join(colour(ln) if ":::MLLOG" in ln else ln for ln in lines))
    verdict = check_file(str(coloured), "5.0.0")
    assert not verdict.passed  # as the official checker: no record read
    [none] = [p for p in verdict.problems if p.rule == "MLC001"]
    assert "ANSI colour codes" in none.message and "sed 's/" in none.message
    marked = [p for p in verdict.problems if p.rule == where]
    assert marked and all("ANSI colour code (ESC[0m)" in p.message for p in marked)
    # The command the message gives restores the log byte for byte.
    command = none.message.split("strip them (")[1].split(" LOG > CLEAN")[0]
    stripped = subprocess.run(
        [*command.split(" ", 1)[:1], command.split(" ", 1)[1].strip("'"), str(coloured)],
        capture_output=True,
        check=True,
    ).stdout
    assert stripped == original.read_bytes()
    done = _run("check", str(coloured), "--ruleset", "5.0.0")
    # not a log (exit 2, as for any input error); the codes are named, never echoed
    assert done.returncode == 2 and "\x1b" not in done.stdout


@pytest.mark.corpus
def test_a_misspelt_description_key_is_reported_at_its_line(corpus: Path, tmp_path: Path) -> None:
    org = _org(tmp_path, corpus)
    desc = org / "systems" / f"{SYSTEM}.json"
    desc.write_text(desc.read_text().replace('"accelerators_per_node"', '"accelerator_per_node"'))
    line = next(
        n for n, ln in enumerate(desc.read_text().splitlines(), 1) if "accelerator_per_node" in ln
    )
    report = check_package(org, "5.0.0")
    [found] = [p for p in report.problems if p.rule == "MLP011"]
    assert (found.line, found.column) == (line, 5)
    assert "'accelerator_per_node' (did you mean 'accelerators_per_node'?)" in found.message
    assert not report.official_passed  # the official check misses the key too


@pytest.mark.corpus
def test_a_division_not_closed_says_seeds_and_rcp_are_off(corpus: Path, tmp_path: Path) -> None:
    org = _org(tmp_path, corpus)
    desc = org / "systems" / f"{SYSTEM}.json"
    desc.write_text(desc.read_text().replace('"division": "closed"', '"division": "closd"'))
    report = check_package(org, "5.0.0")
    [advice] = [p for p in report.problems if p.rule == "MLP100"]
    assert "'division' is 'closd'" in advice.message
    assert "seed and RCP checks run only for a division of exactly 'closed'" in advice.message
    assert report.official_passed
    assert not [p for p in report.problems if p.rule in ("MLP040", "MLR010", "MLR020")]
    if has_module("mlperf_logging"):
        log = tmp_path / "package_checker.log"
        command = [sys.executable, "-m", "mlperf_logging.package_checker", str(org)]
        subprocess.run(
            [*command, "training", "5.0.0", "--log_output", str(log)],
            cwd=tmp_path,
            capture_output=True,
            check=False,
        )
        text = log.read_text()
        assert "FOUND NO ERRORS" in text and "RCP" not in text and "Seed" not in text


@pytest.mark.corpus
def test_package_junit_has_its_verdict_and_real_classnames(corpus: Path, tmp_path: Path) -> None:
    org = _org(tmp_path, corpus)
    clean = ET.fromstring(
        _run("package", str(org), "--ruleset", "5.0.0", "--format", "junit").stdout
    )
    cases = list(clean.iter("testcase"))
    assert clean.get("tests") == "1" and clean.get("failures") == "0"
    assert [(c.get("name"), c.get("classname")) for c in cases] == [
        ("package verdict", "package.GigaComputing")
    ]
    log = org / RGAT / "result_3.txt"
    log.write_text(log.read_text().replace('"value": "rgat"', '"value": "retinanet"'))
    done = _run("package", str(org), "--ruleset", "5.0.0", "--format", "junit")
    failing = ET.fromstring(done.stdout)
    verdict = next(c for c in failing.iter("testcase") if c.get("name") == "package verdict")
    failure = verdict.find("failure")
    assert failure is not None and "stops here: KeyError: None" in failure.get("message", "")
    classes = {c.get("classname") for c in failing.iter("testcase")}
    assert f"package.GigaComputing.results.{SYSTEM}.rgat" in classes


@pytest.mark.corpus
def test_sarif_names_the_base_of_its_relative_paths(corpus: Path, tmp_path: Path) -> None:
    org = _org(tmp_path, corpus)
    log = org / RGAT / "result_3.txt"
    log.write_text(log.read_text().replace('"value": "rgat"', '"value": "retinanet"'))
    done = _run("package", "GigaComputing", "--ruleset", "5.0.0", "--format", "sarif", cwd=tmp_path)
    [run] = json.loads(done.stdout)["runs"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == tmp_path.resolve().as_uri() + "/"
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uriBaseId"] == "%SRCROOT%" and artifact["uri"].startswith("GigaComputing/")


@pytest.mark.corpus
def test_columns_are_one_based_in_text(corpus: Path, tmp_path: Path) -> None:
    """MLR020 (a seed used twice) printed column 0 at a line."""
    org = _org(tmp_path, corpus)
    folder = org / RGAT
    first = folder / "result_0.txt"
    seed = next(ln for ln in first.read_text().splitlines() if '"key": "seed"' in ln)
    value = json.loads(seed.split(":::MLLOG ", 1)[1])["value"]
    second = folder / "result_1.txt"
    lines = second.read_text().splitlines(keepends=True)
    for n, ln in enumerate(lines):
        if '"key": "seed"' in ln:
            record = json.loads(ln.split(":::MLLOG ", 1)[1])
            lines[n] = ln.replace(f'"value": {record["value"]}', f'"value": {value}')
    second.write_text("".join(lines))
    done = _run("score", str(org), "--ruleset", "5.0.0")
    reused = [ln for ln in done.stderr.splitlines() if "MLR020" in ln]
    assert reused and all(":0: " not in ln for ln in reused)
    assert all(ln.split(": error")[0].rsplit(":", 1)[1] == "1" for ln in reused), reused
