"""Compliance rules (MLC): code, name and severity of each, what the engine reports with.

MLC0xx are what the official checker also fails a log for (errors). MLC1xx go
beyond it: warnings by default (the verdict stays the official one), errors
under ``--strict``. MLC101 is the official checker's own warning. Each constant is
the rule's light ``RuleInfo`` (``rule.problem(...)`` makes its Problem); summaries,
rationales and example logs are added in ``catalog_entries.py``, which registers the
full entries, so that a single-file check does not build the example logs.
"""

from __future__ import annotations

from ..catalog import RuleInfo
from ..problems import Severity

E, W = Severity.ERROR, Severity.WARNING


def _rule(code: str, name: str, severity: Severity) -> RuleInfo:
    # The engine's light copy (no summary, no examples): enough to make a Problem.
    # catalog_entries.py registers the full entry built from it.
    return RuleInfo(code, name, severity, "", "", "", stage="check")


NO_RECORDS = _rule("MLC001", "no-mllog-records", E)
UNREADABLE_RECORD = _rule("MLC002", "record-without-value-or-metadata", E)
MISSING_KEY = _rule("MLC010", "missing-key", E)
REPEATED_DIFFERENT = _rule("MLC011", "key-repeated-different-values", E)
MISSING_ALTERNATIVE = _rule("MLC012", "missing-alternative", E)
BAD_VALUE = _rule("MLC020", "bad-value", E)
BAD_METADATA = _rule("MLC021", "bad-metadata", E)
OUT_OF_ORDER = _rule("MLC030", "out-of-order", E)
INIT_TOO_LONG = _rule("MLC031", "init-too-long", E)
TARGET_NOT_REACHED = _rule("MLC040", "quality-target-not-reached", E)
INCOMPLETE_SET = _rule("MLC041", "incomplete-tensor-set", E)
UNKNOWN_BENCHMARK = _rule("MLC050", "benchmark-not-in-round", E)
BAD_RELATION = _rule("MLC051", "bad-relation", E)
TOO_FEW_RECORDS = _rule("MLC052", "too-few-records", E)
UNAGGREGATABLE = _rule("MLC053", "eval-not-aggregatable", E)
REPEATED_SAME = _rule("MLC101", "key-repeated-same-value", W)
SSD_FIRST_BOUNDARY = _rule("MLC102", "ssd-first-boundary", W)
SGD_MOMENTUM = _rule("MLC103", "sgd-momentum", W)
SGD_POLY_POWER = _rule("MLC104", "sgd-poly-power", W)
RUN_NOT_SUCCESS = _rule("MLC105", "run-not-successful", W)
TIME_BACKWARDS = _rule("MLC106", "timestamp-backwards", W)
TIME_ZERO = _rule("MLC107", "zero-timestamp", W)
HEADER_CONFLICT = _rule("MLC108", "header-key-conflict", W)
ROUND_MISMATCH = _rule("MLC109", "syntax-of-another-round", W)
RENAMED_LATER = _rule("MLC110", "key-renamed-after-the-round", W)

# code -> rule: rule data names codes (a key's warn_as), the engine reports the rule.
TABLE: dict[str, RuleInfo] = {
    info.code: info
    for info in (
        NO_RECORDS,
        UNREADABLE_RECORD,
        MISSING_KEY,
        REPEATED_DIFFERENT,
        MISSING_ALTERNATIVE,
        BAD_VALUE,
        BAD_METADATA,
        OUT_OF_ORDER,
        INIT_TOO_LONG,
        TARGET_NOT_REACHED,
        INCOMPLETE_SET,
        UNKNOWN_BENCHMARK,
        BAD_RELATION,
        TOO_FEW_RECORDS,
        UNAGGREGATABLE,
        REPEATED_SAME,
        SSD_FIRST_BOUNDARY,
        SGD_MOMENTUM,
        SGD_POLY_POWER,
        RUN_NOT_SUCCESS,
        TIME_BACKWARDS,
        TIME_ZERO,
        HEADER_CONFLICT,
        ROUND_MISMATCH,
        RENAMED_LATER,
    )
}
