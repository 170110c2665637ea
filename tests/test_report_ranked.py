"""The report's round view starts from the audit's ranked results (report/ranked.py)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from mllog_check.html_report import build_report, collect
from mllog_check.html_report.ranked import ranked_rows
from mllog_check.submission.audit import run_audit

ROUND = FIXTURES / "audit/round"


def test_ranked_rows_are_the_audits_results_with_score_or_rules(tmp_path: Path) -> None:
    data = collect([str(ROUND)], "1.0.0", jobs=1)
    audited = run_audit(ROUND, "1.0.0", jobs=1)
    ranked = ranked_rows(data)
    assert ranked and {r["worst"] for r in ranked} <= {"score", "rules"}
    assert [r["rank"] for r in ranked] == sorted(r["rank"] for r in ranked)
    # the same rows as the audit's table (the same anomalies: submission.audit.finish)
    assert ranked == [r for r in audited.results if r["worst"] in ("score", "rules")]
    assert all(a.get("impact") for a in data.anomalies)


def test_the_summary_starts_with_the_ranked_table(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    build_report([str(ROUND)], out, "1.0.0", jobs=1)
    html = out.read_text()
    summary = html.index('id="summary-h"')
    ranked, table = html.index('id="ranked-table"'), html.index('id="summary-table"')
    assert summary < ranked < table
    first_row = html[ranked:].split("<tbody>")[1].split("</tr>")[0]
    assert '<td class="num">1</td>' in first_row and "score" in first_row


def test_habits_are_listed_with_the_info_group() -> None:
    from mllog_check.html_report.build import problem_groups
    from mllog_check.html_report.collect import ReportData

    row = {"org": "A", "system": "s", "benchmark": "b", "path": "A/results/s/b/r.txt"}
    habit = {**row, "line": 3, "kind": "time-ms-zero", "message": "m", "code": "MLA030"}
    data = ReportData(paths=[], base=".")
    data.anomalies = [{**habit, "impact": "info"}, {**habit, "line": 4, "impact": "rules"}]
    groups, _ = problem_groups(data)
    lines = {g["severity"]: [i["line"] for c in g["codes"] for i in c["items"]] for g in groups}
    assert lines == {"warning": [4], "info": [3]}
