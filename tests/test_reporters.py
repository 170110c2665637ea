"""Every output format of the reporters registry, parsed back."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check import reporters
from mllog_check.rules import check_file

CHECK = FIXTURES / "check"
GOOD = str(CHECK / "sample_closed_resnet_lars.pass.txt")
BAD = str(CHECK / "closed_resnet_lars.fail.MLC020.txt")
WARN_TEXT = (CHECK / "closed_ssd.pass.txt").read_text()


def _render(fmt: str, paths: list[str]) -> str:
    out = io.StringIO()
    reporters.write(fmt, reporters.CHECK, [check_file(p, "1.0.0") for p in paths], out)
    return out.getvalue()


def test_every_registered_format_renders_a_pass_and_a_fail() -> None:
    """A property of the registry, not its list today: every format ``check`` offers is
    sorted, renders the sample logs with both paths named, and an unknown one is a
    KeyError (adding a format touches its own files and tests only)."""
    names = reporters.names()
    assert names == sorted(names) and "text" in names
    for fmt in names:
        shown = _render(fmt, [GOOD, BAD])
        assert shown.strip(), fmt
        assert Path(BAD).name in shown, fmt
    with pytest.raises(KeyError):
        reporters.get("no-such-format")


def test_json_shape_and_order() -> None:
    data = json.loads(_render("json", [GOOD, BAD]))
    assert [f["path"] for f in data["files"]] == sorted([GOOD, BAD])
    bad, good = data["files"]
    assert good["verdict"] == "pass" and good["problems"] == []
    assert bad["verdict"] == "fail"
    assert (bad["division"], bad["benchmark"], bad["ruleset"]) == (
        "closed",
        "resnet",
        "training-1.0.0",
    )
    [problem] = bad["problems"]
    assert set(problem) == {"line", "column", "rule", "name", "severity", "message"}
    assert (problem["line"], problem["rule"], problem["severity"]) == (11, "MLC020", "error")
    assert _render("json", [BAD, GOOD]) == _render("json", [GOOD, BAD])


def test_text_lines() -> None:
    text = _render("text", [BAD, GOOD])
    line = f"{BAD}:11:1: error: MLC020 closed resnet (lars): lars_opt_end_learning_rate is 0.001, "
    assert line in text
    assert f"{GOOD}: pass (closed resnet, training-1.0.0)" in text
    assert text.endswith("2 files: 1 pass, 1 fail\n")


def test_junit_parses_with_failures() -> None:
    root = ET.fromstring(_render("junit", [GOOD, BAD]))
    assert root.tag == "testsuites" and root.get("failures") == "1" and root.get("tests") == "2"
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == sorted([GOOD, BAD])
    failing = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failing] == [BAD]
    assert "MLC020" in (failing[0].find("failure").text or "")  # type: ignore[union-attr]


def test_sarif_structure() -> None:
    log = json.loads(_render("sarif", [GOOD, BAD, "missing-file.txt"]))
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(ids) and "MLC020" in ids
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"error", "warning", "note"}
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"]
        assert "region" not in loc or loc["region"]["startLine"] >= 1
    bad = [r for r in run["results"] if r["ruleId"] == "MLC020"]
    assert bad[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 11


def test_github_annotations(tmp_path: Path) -> None:
    lines = _render("github", [BAD]).splitlines()
    assert lines == [
        f"::error file={BAD},line=11,col=1,title=MLC020 bad-value::closed resnet (lars): "
        "lars_opt_end_learning_rate is 0.001, must be 0.0001"
    ]
    # A warning, in a file whose name needs escaping in a property.
    path = tmp_path / "a,b:c.txt"
    path.write_text(WARN_TEXT.replace("[44, 55]", "[43, 55]"))
    # The log passes with its warning: check adds its notice line after it.
    annotation, notice = _render("github", [str(path)]).splitlines()
    assert notice.startswith("::notice title=mllog-check check::1 log checked: all pass")
    assert annotation.startswith("::warning file=") and "a%2Cb%3Ac.txt,line=" in annotation
    assert "title=MLC102 ssd-first-boundary::" in annotation


def test_github_says_one_notice_when_every_log_passed() -> None:
    def check(paths: list[str]) -> str:
        out = io.StringIO()
        reporters.write("github", reporters.CHECK, [check_file(p, "1.0.0") for p in paths], out)
        return out.getvalue()

    notice = "::notice title=mllog-check check::2 logs checked: all pass"
    assert check([GOOD, GOOD]).splitlines() == [notice]
    assert "::notice" not in check([GOOD, BAD])


def _github_anchor(heading: str) -> str:
    # GitHub's heading anchors: lower case, characters other than letters, digits, spaces,
    # hyphens and underscores dropped, spaces to hyphens.
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def test_sarif_help_uri_is_the_code_s_own_section_of_codes_doc() -> None:
    from conftest import ROOT

    from mllog_check import catalog

    doc = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    anchors = {_github_anchor(line[3:]) for line in doc.splitlines() if line.startswith("## ")}
    log = json.loads(_render("sarif", [GOOD, BAD, "missing-file.txt"]))
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {"MLC020", "MLS010"}
    for rule in rules:
        page, _, anchor = rule["helpUri"].partition("#")
        assert page.endswith("/docs/codes.md") and anchor in anchors, rule
        assert anchor.startswith(rule["id"].lower() + "-")
    # Every code's anchor is a section of the page.
    assert [r.code for r in catalog.all_rules() if r.anchor not in anchors] == []
