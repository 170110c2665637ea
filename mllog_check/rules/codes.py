"""Compliance rule codes (MLC) and their names and severities: what the engine reports.

MLC0xx are what the official checker also fails a log for (errors). MLC1xx go
beyond it: warnings by default (the verdict stays the official one), errors
under ``--strict``. MLC101 is the official checker's own warning. Summaries and
example logs are in ``catalog_entries.py`` (the catalog registry).
"""

from __future__ import annotations

from ..problems import Severity

E, W = Severity.ERROR, Severity.WARNING

NO_RECORDS = "MLC001"
UNREADABLE_RECORD = "MLC002"
MISSING_KEY = "MLC010"
REPEATED_DIFFERENT = "MLC011"
MISSING_ALTERNATIVE = "MLC012"
BAD_VALUE = "MLC020"
BAD_METADATA = "MLC021"
OUT_OF_ORDER = "MLC030"
INIT_TOO_LONG = "MLC031"
TARGET_NOT_REACHED = "MLC040"
INCOMPLETE_SET = "MLC041"
UNKNOWN_BENCHMARK = "MLC050"
BAD_RELATION = "MLC051"
TOO_FEW_RECORDS = "MLC052"
UNAGGREGATABLE = "MLC053"
REPEATED_SAME = "MLC101"
SSD_FIRST_BOUNDARY = "MLC102"
SGD_MOMENTUM = "MLC103"
SGD_POLY_POWER = "MLC104"
RUN_NOT_SUCCESS = "MLC105"
TIME_BACKWARDS = "MLC106"
TIME_ZERO = "MLC107"
HEADER_CONFLICT = "MLC108"
ROUND_MISMATCH = "MLC109"
RENAMED_LATER = "MLC110"

# code -> (name, severity)
TABLE: dict[str, tuple[str, Severity]] = {
    NO_RECORDS: ("no-mllog-records", E),
    UNREADABLE_RECORD: ("record-without-value-or-metadata", E),
    MISSING_KEY: ("missing-key", E),
    REPEATED_DIFFERENT: ("key-repeated-different-values", E),
    MISSING_ALTERNATIVE: ("missing-alternative", E),
    BAD_VALUE: ("bad-value", E),
    BAD_METADATA: ("bad-metadata", E),
    OUT_OF_ORDER: ("out-of-order", E),
    INIT_TOO_LONG: ("init-too-long", E),
    TARGET_NOT_REACHED: ("quality-target-not-reached", E),
    INCOMPLETE_SET: ("incomplete-tensor-set", E),
    UNKNOWN_BENCHMARK: ("benchmark-not-in-round", E),
    BAD_RELATION: ("bad-relation", E),
    TOO_FEW_RECORDS: ("too-few-records", E),
    UNAGGREGATABLE: ("eval-not-aggregatable", E),
    REPEATED_SAME: ("key-repeated-same-value", W),
    SSD_FIRST_BOUNDARY: ("ssd-first-boundary", W),
    SGD_MOMENTUM: ("sgd-momentum", W),
    SGD_POLY_POWER: ("sgd-poly-power", W),
    RUN_NOT_SUCCESS: ("run-not-successful", W),
    TIME_BACKWARDS: ("timestamp-backwards", W),
    TIME_ZERO: ("zero-timestamp", W),
    HEADER_CONFLICT: ("header-key-conflict", W),
    ROUND_MISMATCH: ("syntax-of-another-round", W),
    RENAMED_LATER: ("key-renamed-after-the-round", W),
}
