"""Syntax rules (MLS): what the parser reports about marker lines and inputs."""

from __future__ import annotations

from ..catalog import RuleInfo, register
from ..problems import Severity

_GOOD = (
    ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "event_type": "POINT_IN_TIME", '
    '"key": "cache_clear", "value": true, "metadata": {"file": "x.py", "lineno": 4}}\n'
)

BAD_ENVELOPE = register(
    RuleInfo(
        code="MLS001",
        name="bad-envelope",
        severity=Severity.ERROR,
        summary="A line carries an MLPerf marker but the text after it does not follow "
        "the generation's syntax (grammars/mllog.lark).",
        good_example=":::MLL 1560881700.860 submission_org: "
        '{"metadata": {"lineno": 0, "file": "N/A"}, "value": "NVIDIA"}\n',
        bad_example=':::MLL submission_org: {"value": "NVIDIA"}\n',
    )
)
BAD_JSON = register(
    RuleInfo(
        code="MLS002",
        name="bad-json",
        severity=Severity.ERROR,
        summary="The JSON payload of a record does not decode: truncated, bad nesting, "
        "stray characters. The column points at the first bad character.",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_cl\n',
    )
)
NOT_AN_OBJECT = register(
    RuleInfo(
        code="MLS003",
        name="payload-not-object",
        severity=Severity.ERROR,
        summary="A :::MLLOG payload must be a JSON object.",
        good_example=_GOOD,
        bad_example=':::MLLOG ["cache_clear", 1621532919228]\n',
    )
)
MISSING_FIELD = register(
    RuleInfo(
        code="MLS004",
        name="missing-field",
        severity=Severity.ERROR,
        summary="A :::MLLOG record lacks `key` or `time_ms`; without them it is not a record.",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "key": "cache_clear", "value": true, '
        '"metadata": {}}\n',
    )
)
BAD_FIELD_TYPE = register(
    RuleInfo(
        code="MLS005",
        name="bad-field-type",
        severity=Severity.ERROR,
        summary="`key` must be a string and `time_ms` a number (a numeric string is "
        "accepted with a warning, MLS012).",
        good_example=_GOOD,
        bad_example=':::MLLOG {"time_ms": "soon", "key": "cache_clear", "value": true, '
        '"metadata": {}}\n',
    )
)
MISSING_VALUE_OR_METADATA = register(
    RuleInfo(
        code="MLS006",
        name="missing-value-or-metadata",
        severity=Severity.WARNING,
        summary="A :::MLLOG record without `value` or `metadata` is read with null/{} "
        "(the official parser crashes on it).",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_clear", '
        '"value": true}\n',
    )
)
NONSTANDARD_JSON = register(
    RuleInfo(
        code="MLS007",
        name="nonstandard-json",
        severity=Severity.INFO,
        summary="The payload uses Infinity, -Infinity or NaN: not JSON, but Python's json "
        "(and so the official tools) accept it, and so does mllog-check.",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "time_ms": 1621532919228, '
        '"key": "opt_gradient_clip_norm", "value": Infinity, "metadata": {}}\n',
    )
)
BAD_ENCODING = register(
    RuleInfo(
        code="MLS008",
        name="bad-encoding",
        severity=Severity.WARNING,
        summary="A marker line holds bytes that are not UTF-8; it is read as latin-1, "
        "as the official tools read every file.",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_clear", '
        '"value": "caf\xe9", "metadata": {}}\n',
    )
)
INPUT_ERROR = register(
    RuleInfo(
        code="MLS010",
        name="input-error",
        severity=Severity.ERROR,
        summary="The input cannot be read: missing, a directory where a file was expected, "
        "unreadable, a broken gzip stream, a link leaving the checked tree; or (score, "
        "cost) nothing tells which round's rules apply, or that round's scoring data is not "
        "in this build.",
        good_example="fixtures/parse/clean_v1.txt",
        bad_example="fixtures/parse/truncated.log.gz",  # the first half of a gzip stream
        stage="parse-path",
    )
)
NO_RECORDS = register(
    RuleInfo(
        code="MLS011",
        name="no-records",
        severity=Severity.WARNING,
        summary="The input holds no MLPerf marker at all (empty, binary or an unrelated file).",
        good_example=_GOOD,
        bad_example="just some training output\nno marker here\n",
    )
)
TIME_AS_STRING = register(
    RuleInfo(
        code="MLS012",
        name="time-as-string",
        severity=Severity.WARNING,
        summary="`time_ms` is a numeric string; the official parser converts it with float(), "
        "and so does mllog-check.",
        good_example=_GOOD,
        bad_example=':::MLLOG {"namespace": "", "time_ms": "1621532919228", "key": "cache_clear", '
        '"value": true, "metadata": {}}\n',
    )
)
NOT_UTF8_FILE = register(
    RuleInfo(
        code="MLS013",
        name="text-encoding",
        severity=Severity.WARNING,
        summary="The file is UTF-16 (it starts with a byte-order mark); it is decoded as such.",
        good_example=_GOOD,
        bad_example="\ufeff" + _GOOD,  # written as UTF-16 by tests/test_inputs.py
        stage="parse-utf16",
    )
)
