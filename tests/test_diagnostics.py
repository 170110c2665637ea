"""One diagnostic type end to end: the audit's anomalies are Problems, and every table,
CSV and JSON row of a problem is ``Problem.row``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from conftest import FIXTURES

from mllog_check.problems import FIELDS, NO_CONTEXT, Context, Problem, Severity
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
    }
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
    rows = [a.row(ANOMALY_COLUMNS) for a in result.anomalies]
    assert table == [{k: str(v) for k, v in row.items()} for row in rows]
    assert json.loads((tmp_path / "anomalies.json").read_text()) == rows
    with open(tmp_path / "problems.csv", encoding="utf-8") as handle:
        problems = list(csv.DictReader(handle))
    assert problems == [
        {k: str(v) for k, v in p.row(PROBLEM_COLUMNS).items()} for p in result.problems
    ]
