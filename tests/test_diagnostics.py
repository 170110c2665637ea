"""One diagnostic type end to end: the audit's anomalies are Problems, and every table,
CSV and JSON row of a problem is ``Problem.row``."""

from __future__ import annotations

import csv
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check import reporters
from mllog_check.cli import cli
from mllog_check.problems import FIELDS, NO_CONTEXT, Context, Problem, Severity, format_problem
from mllog_check.reporters.summary import PathResult
from mllog_check.reporters.text import write_problems
from mllog_check.rounds import parse_round
from mllog_check.submission import codes
from mllog_check.submission.audit import PROBLEM_COLUMNS, run_audit, write_outputs
from mllog_check.submission.package import ANOMALY_COLUMNS


def _anomaly() -> Problem:
    where = Context("Acme", "acme-8x", "resnet")
    return codes.TIME_ZERO.problem("Acme/results/r.txt", "2 timed records", 7, context=where)


def test_an_anomaly_is_a_problem_of_its_registered_rule() -> None:
    p = _anomaly()
    assert (p.rule, p.name, p.severity) == ("MLA002", "time-zero", Severity.WARNING)
    assert p.context.org == "Acme" and p.context.benchmark == "resnet"


def test_one_row_function_for_every_column_set() -> None:
    p = _anomaly()
    assert p.row(ANOMALY_COLUMNS) == {
        "org": "Acme",
        "system": "acme-8x",
        "benchmark": "resnet",
        "path": "Acme/results/r.txt",
        "line": 7,
        "kind": "time-zero",
        "message": "2 timed records",
        "code": "MLA002",
        "impact": "",  # the audit sets it (submission/impact.py)
    }
    assert p.replace(impact="rules").row(ANOMALY_COLUMNS)["impact"] == "rules"
    assert list(p.row(PROBLEM_COLUMNS)) == list(PROBLEM_COLUMNS)
    assert p.row(PROBLEM_COLUMNS)["org"] == "Acme"
    assert p.to_dict() == p.row() and tuple(p.to_dict()) == FIELDS  # no context columns


def test_context_changes_nothing_of_a_problem_without_it() -> None:
    plain = Problem("a.txt", 3, 1, "MLC020", Severity.ERROR, "bad", "bad-value")
    assert plain.context == NO_CONTEXT == Context()
    assert sorted([plain, Problem("a.txt", 2, 1, "MLC020", Severity.ERROR, "x")])[1] == plain
    assert Problem("a.txt", 3, 1, "MLC020", Severity.ERROR, "bad", "bad-value") == plain


def test_audit_tables_are_the_rows_of_its_problems(tmp_path: Path) -> None:
    result = run_audit(FIXTURES / "audit" / "round", "1.0.0", jobs=1)
    assert result.anomalies and result.problems
    assert all(isinstance(a, Problem) and a.context.org for a in result.anomalies)
    write_outputs(result, tmp_path)
    with open(tmp_path / "anomalies.csv", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    # Each row is the problem's, with its org's round and the round's publication date.
    when = {"round": "v1.0", "published": parse_round("1.0.0").published}
    rows = [{**a.row(ANOMALY_COLUMNS), **when} for a in result.anomalies]
    assert table == [{k: str(v) for k, v in row.items()} for row in rows]
    assert json.loads((tmp_path / "anomalies.json").read_text()) == rows
    with open(tmp_path / "problems.csv", encoding="utf-8") as handle:
        problems = list(csv.DictReader(handle))
    assert problems == [
        {k: str(v) for k, v in {**p.row(PROBLEM_COLUMNS), **when}.items()} for p in result.problems
    ]


# -- one text form of a problem, one registry of problem formats --------------------------

BAD = FIXTURES / "check" / "closed_resnet_lars.fail.MLC020.txt"
ROUND = FIXTURES / "audit" / "round"
ORG = FIXTURES / "package" / "mismatch" / "Acme"


def _problem() -> Problem:
    return Problem("r.txt", 4, 68, "MLS002", Severity.ERROR, "truncated JSON", "bad-json", "{")


def test_the_text_form() -> None:
    p = _problem()
    assert (
        format_problem(p)
        == str(p)
        == ("r.txt:4:68: error: MLS002 truncated JSON [bad-json]\n    {")
    )
    warning = Problem("r.txt", 0, 0, "MLC106", Severity.WARNING, "beyond", "x")
    assert str(warning) == "r.txt: warning: MLC106 beyond [x]"


def _written(name: str, command: str, report: object, **options: object) -> str:
    out = io.StringIO()
    reporters.write(name, command, report, out, **options)
    return out.getvalue()


def test_every_command_writes_a_problem_in_the_one_text_form() -> None:
    p = _problem()
    line = format_problem(p)
    check = _written(
        "text", reporters.CHECK, [PathResult("r.txt", False, None, None, "1.0.0", [p])]
    )
    package = SimpleNamespace(
        problems=[p],
        scores=[],
        org="Acme",
        ruleset="1.0.0",
        passed=False,
        official_passed=False,
        strict=False,
        beyond=0,
        counts=lambda: {"error": 1, "warning": 0, "info": 0},
    )
    audit = SimpleNamespace(problems=[p], anomalies=[], ruleset="1.0.0")
    junit = ET.fromstring(_written("junit", reporters.AUDIT, audit))
    shown = io.StringIO()
    write_problems([p], shown)  # parse and score (stderr)
    assert check.startswith(line + "\n")
    assert _written("text", reporters.PACKAGE, package).startswith(line + "\n")
    assert junit.find(".//failure").text == line  # type: ignore[union-attr]
    assert shown.getvalue() == line + "\n"


def test_check_parse_and_package_print_the_same_line(tmp_path: Path) -> None:
    runner = CliRunner()
    checked = runner.invoke(cli, ["check", "--ruleset", "1.0.0", str(BAD)])
    assert f"{BAD}:11:1: error: MLC020 closed resnet (lars): " in checked.output
    org = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", org)
    target = next(org.glob("results/*/*/result_0.txt"))
    target.write_text(target.read_text()[:-30])  # a truncated last line: MLS002
    parsed = runner.invoke(cli, ["parse", "-q", str(target)])
    [line] = [x for x in parsed.stderr.splitlines() if ": error: MLS002 " in x]
    checked = runner.invoke(cli, ["check", "--ruleset", "1.0.0", str(target)])
    packaged = runner.invoke(cli, ["package", "--ruleset", "1.0.0", str(org)])
    assert line in checked.output.splitlines()
    assert line in packaged.output.splitlines()


def test_the_registry_says_who_offers_what() -> None:
    """Properties, not today's list: check's choices are sorted and offer text; package
    and audit offer every format; a format a command does not offer is a KeyError."""
    checks = reporters.names(reporters.CHECK)
    assert checks == sorted(checks) and "text" in checks and set(checks) <= set(reporters.FORMATS)
    assert set(reporters.offered(reporters.PACKAGE)) == set(reporters.FORMATS)
    assert set(reporters.offered(reporters.AUDIT)) == set(reporters.FORMATS)
    for name in set(reporters.FORMATS) - set(checks):
        with pytest.raises(KeyError):
            reporters.write(name, reporters.CHECK, [], io.StringIO())


def _parses(name: str, text: str) -> None:
    """The output of a format reads back as that format."""
    if name in ("json", "sarif"):
        json.loads(text)
    elif name == "junit":
        assert ET.fromstring(text).tag == "testsuites"
    elif name == "csv":
        header = text.split("\n", 1)[0]  # the audit's anomalies add their severity
        assert header in ("path,line,column,rule,name,severity,message", (
            "path,line,column,rule,name,severity,message,impact"
        ))  # fmt: skip
    elif name == "github":
        assert all(x.startswith("::") for x in text.splitlines()) and text
    else:
        assert text


@pytest.mark.parametrize("name", reporters.offered(reporters.PACKAGE))
def test_package_accepts_every_format_it_claims(name: str) -> None:
    done = CliRunner().invoke(cli, ["package", "--ruleset", "1.0.0", "--format", name, str(ORG)])
    assert done.exit_code in (0, 1), done.output
    _parses(name, done.stdout)


@pytest.mark.parametrize("name", reporters.offered(reporters.AUDIT))
def test_audit_accepts_every_format_it_claims(name: str, tmp_path: Path) -> None:
    args = ["audit", "--ruleset", "1.0.0", "-j", "1", "--out", str(tmp_path), "--format", name]
    done = CliRunner().invoke(cli, [*args, str(ROUND)])
    assert done.exit_code == 1, done.output  # the fixture round has anomalies
    _parses(name, done.stdout)
    written = sum(1 for p in tmp_path.rglob("*") if p.is_file())
    assert written > 1  # the tables and the record, whatever the format of stdout
    assert f"wrote {written} files" in (done.stdout if name == "text" else done.stderr)
    if name == "json":  # every anomaly is in it, with its code
        files = json.loads(done.stdout)["files"]
        rules = {p["rule"] for f in files for p in f["problems"]}
        assert {"MLA001", "MLA005", "MLA010"} <= rules
        # a result log's problems carry its benchmark (from the anomalies' context)
        logs = [f for f in files if f["path"].endswith(".txt") and "/results/" in f["path"]]
        assert logs and all(f["benchmark"] == "resnet" for f in logs), logs[:1]


def test_usage_lines_link_the_registrys_formats_not_list_them() -> None:
    """README's and the command pages' usage lines say ``--format FORMAT`` and link the
    generated table of formats (docs/design.md, "Output formats"): a new format changes
    that table, no hand-kept list."""
    root = FIXTURES.parent
    pages = {"README.md": "docs/design.md#output-formats"}
    commands = (reporters.PACKAGE, reporters.AUDIT)
    pages |= {f"docs/{c}.md": "design.md#output-formats" for c in commands}
    for page, link in pages.items():
        doc = (root / page).read_text()
        assert "[--format FORMAT]" in doc and f"]({link})" in doc, page
        assert "--format text|" not in doc, page
