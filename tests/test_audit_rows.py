"""Typed rows (the audit's runs, submission/audit_rows.py; score's runs, results/scores.py)
follow their tables' columns."""

from __future__ import annotations

from typing import get_type_hints

from mllog_check.submission.audit_rows import AuditRun
from mllog_check.submission.package import AUDIT_RUN_COLUMNS


def test_the_typed_row_has_the_tables_columns_in_order() -> None:
    assert tuple(get_type_hints(AuditRun)) == AUDIT_RUN_COLUMNS


def test_the_score_run_row_is_typed_with_the_tables_columns() -> None:
    from mllog_check.results.scores import SCORE_RUN_COLUMNS, ScoreRun

    assert tuple(get_type_hints(ScoreRun)) == SCORE_RUN_COLUMNS
