"""The audit's runs rows are typed (submission/audit_rows.py) and follow the table's columns."""

from __future__ import annotations

from typing import get_type_hints

from mllog_check.submission.audit_rows import AuditRun
from mllog_check.submission.package import AUDIT_RUN_COLUMNS


def test_the_typed_row_has_the_tables_columns_in_order() -> None:
    assert tuple(get_type_hints(AuditRun)) == AUDIT_RUN_COLUMNS
