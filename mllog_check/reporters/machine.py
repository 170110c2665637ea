"""Machine formats: JSON (a fixed shape, tests/test_reporters.py), JUnit XML, SARIF 2.1.0, CSV."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..problems import Problem, Severity, format_problem
from . import PACKAGE, Report, ordered

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any, NotRequired, TextIO, TypedDict

    class JsonProblem(TypedDict):
        """A problem in the JSON format: the file's path is its parent's."""

        line: int
        column: int
        rule: str
        name: str
        severity: str
        message: str
        impact: NotRequired[str]  # an audit anomaly's severity (docs/audit.md)

    class JsonFile(TypedDict):
        path: str
        verdict: str  # pass or fail
        division: str | None
        benchmark: str | None
        ruleset: str | None
        ruleset_source: str | None
        problems: list[JsonProblem]

    class JsonDocument(TypedDict):
        """The JSON format's document (tests/test_reporters.py holds its shape)."""

        files: list[JsonFile]

    class SarifRegion(TypedDict):
        startLine: int
        startColumn: int

    class SarifLocation(TypedDict):
        artifactLocation: dict[str, str]
        region: NotRequired[SarifRegion]

    class SarifResult(TypedDict):
        ruleId: str
        ruleIndex: int
        level: str
        message: dict[str, str]
        locations: list[dict[str, SarifLocation]]
        properties: NotRequired[dict[str, str]]


# A problem in the CSV format, one row per problem (Problem.row columns).
CSV_COLUMNS = ("path", "line", "column", "rule", "name", "severity", "message")


def as_dict(files: Sequence[Any]) -> JsonDocument:
    return {
        "files": [
            {
                "path": f.path,
                "verdict": "pass" if f.passed else "fail",
                "division": f.division,
                "benchmark": f.benchmark,
                "ruleset": f.ruleset,
                # flag, config, folder, content, date or newest (of what the content allows)
                "ruleset_source": getattr(f, "ruleset_source", "") or None,
                "problems": [_json_row(p) for p in sorted(f.problems)],
            }
            for f in ordered(files)
        ]
    }


def _json_row(p: Problem) -> JsonProblem:
    """A problem's JSON row; an audit anomaly's also has its severity (``impact``)."""
    row: JsonProblem = {
        "line": p.line,
        "column": p.column,
        "rule": p.rule,
        "name": p.name,
        "severity": str(p.severity),
        "message": p.message,
    }
    if p.impact:
        row["impact"] = p.impact
    return row


def json_report(report: Report, out: TextIO) -> None:
    """The package's own document (its verdicts, counts and scores: summary.package_json);
    the files' (``as_dict``) for check and audit."""
    if report.command == PACKAGE:
        from .summary import package_json

        package_json(report.source, out)
    else:
        write_json(report.files, out)


def write_json(files: Sequence[Any], out: TextIO) -> None:
    json.dump(as_dict(files), out, indent=2, sort_keys=False)
    out.write("\n")


class Verdict:
    """A whole report's verdict as one JUnit test case (the package's: a clean package is
    one passing test, not none)."""

    __slots__ = ("name", "classname", "passed", "message", "details")

    def __init__(self, name: str, classname: str, passed: bool, message: str, details: str):
        self.name = name
        self.classname = classname
        self.passed = passed
        self.message = message
        self.details = details


def junit_report(report: Report, out: TextIO) -> None:
    """One test case per file; the package's verdict first (summary.package_verdict)."""
    if report.command == PACKAGE:  # a clean package is one passing test, not none
        from .summary import package_verdict

        source, line = report.source, package_verdict(report.source)
        verdict = Verdict("package verdict", f"package.{source.org}", source.passed, line, line)
        write_junit(report.files, out, "package", verdict)
    else:
        write_junit(report.files, out)


def write_junit(
    files: Sequence[Any], out: TextIO, suite_name: str = "compliance", verdict: Any = None
) -> None:
    """One testcase per file; a failing file has a <failure> listing its errors. A file's
    classname is its own (``classname``) or the round, division and benchmark it was
    checked as; ``verdict`` (a ``Verdict``) adds the report's verdict as the first case."""
    import xml.etree.ElementTree as ET

    from ..safety import printable  # XML 1.0 has no control characters but tab, LF, CR

    files = ordered(files)
    failures = sum(1 for f in files if not f.passed)
    tests = len(files) + (verdict is not None)
    failures += verdict is not None and not verdict.passed
    suites = ET.Element("testsuites", name="mllog-check", tests=str(tests))
    suites.set("failures", str(failures))
    suite = ET.SubElement(suites, "testsuite", name=suite_name, tests=str(tests))
    suite.set("failures", str(failures))
    if verdict is not None:
        case = ET.SubElement(suite, "testcase", name=printable(verdict.name))
        case.set("classname", printable(verdict.classname))
        if not verdict.passed:
            failure = ET.SubElement(case, "failure", type="verdict")
            failure.set("message", printable(verdict.message))
            failure.text = printable(verdict.details)
        else:
            ET.SubElement(case, "system-out").text = printable(verdict.details)
    for f in files:
        case = ET.SubElement(suite, "testcase", name=printable(f.path))
        chain = f"{f.ruleset}.{f.division or 'unknown'}.{f.benchmark or 'unknown'}"
        case.set("classname", printable(getattr(f, "classname", "") or chain))
        errors = [p for p in sorted(f.problems) if p.severity is Severity.ERROR]
        if not f.passed:
            failure = ET.SubElement(case, "failure", type="non-compliant")
            failure.set("message", printable(errors[0].message) if errors else "input error")
            failure.text = "\n".join(format_problem(p) for p in errors)
        others = [p for p in sorted(f.problems) if p.severity is not Severity.ERROR]
        if others:
            ET.SubElement(case, "system-out").text = "\n".join(format_problem(p) for p in others)
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")


def csv_report(report: Report, out: TextIO) -> None:
    write_csv(report.files, out)


def write_csv(files: Sequence[Any], out: TextIO) -> None:
    """One row per problem, files by path, each file's problems sorted."""
    import csv

    from ..safety import csv_row

    writer = csv.writer(out, lineterminator="\n")
    # The audit's anomalies have a severity (impact): a column then, none for check.
    columns: tuple[str, ...] = CSV_COLUMNS
    if any(p.impact for f in files for p in f.problems):
        columns = (*CSV_COLUMNS, "impact")
    writer.writerow(columns)
    for f in ordered(files):
        for p in sorted(f.problems):
            writer.writerow(csv_row(p.row(columns).values()))


_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_report(report: Report, out: TextIO) -> None:
    write_sarif(report.files, out)


def write_sarif(files: Sequence[Any], out: TextIO) -> None:
    """SARIF 2.1.0: rules from the catalog (those reported), one result per problem."""
    from .. import __version__, catalog

    files = ordered(files)
    problems = [p for f in files for p in sorted(f.problems)]
    codes = sorted({p.rule for p in problems})
    index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        try:
            info = catalog.get(code)
        except KeyError:
            rules.append({"id": code})
            continue
        rules.append(
            {
                "id": code,
                "name": info.name,
                "shortDescription": {"text": info.summary.split(". ")[0]},
                "fullDescription": {"text": info.summary},
                "defaultConfiguration": {"level": _LEVEL[info.severity]},
                "helpUri": info.help_uri,
            }
        )
    results = [_sarif_result(p, index[p.rule]) for p in problems]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mllog-check",
                        "version": __version__,
                        "informationUri": "https://github.com/mllog-check/mllog-check",
                        "rules": rules,
                    }
                },
                # Relative artifact URIs resolve against the folder mllog-check ran in.
                "originalUriBaseIds": {SRCROOT: {"uri": _cwd_uri()}},
                "results": results,
            }
        ],
    }
    json.dump(log, out, indent=2)
    out.write("\n")


def sarif_uri(path: str) -> str:
    """A path as a SARIF artifact URI (RFC 3986): a relative reference, percent-encoded
    (so a name like ``javascript:x`` or ``C:x`` is never a scheme), or a ``file:`` URL."""
    from pathlib import PurePath
    from urllib.parse import quote

    if PurePath(path).is_absolute():
        return "file://" + quote(PurePath(path).as_posix(), safe="/")
    return quote(PurePath(path).as_posix(), safe="/")


# The base of relative artifact URIs (SARIF 2.1.0, 3.14.14; the id GitHub code scanning
# and other viewers expect).
SRCROOT = "%SRCROOT%"


def _cwd_uri() -> str:
    """The working folder as a file: URL ending in '/' (SARIF's originalUriBaseIds)."""
    import os

    return sarif_uri(os.getcwd()).rstrip("/") + "/"


def _artifact(path: str) -> dict[str, str]:
    uri = sarif_uri(path)
    return {"uri": uri} if uri.startswith("file:") else {"uri": uri, "uriBaseId": SRCROOT}


def _sarif_result(p: Problem, rule_index: int) -> SarifResult:
    location: SarifLocation = {"artifactLocation": _artifact(p.path)}
    if p.line > 0:
        location["region"] = {"startLine": p.line, "startColumn": max(p.column, 1)}
    result: SarifResult = {
        "ruleId": p.rule,
        "ruleIndex": rule_index,
        "level": _LEVEL[p.severity],
        "message": {"text": p.message},
        "locations": [{"physicalLocation": location}],
    }
    if p.impact:  # an audit anomaly's severity (docs/audit.md)
        result["properties"] = {"impact": p.impact}
    return result
