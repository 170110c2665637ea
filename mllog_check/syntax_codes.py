"""Syntax rules (MLS): what the parser and the input reader report about marker lines
and inputs. A table of ``catalog.rule`` entries (docs/design.md, "Rule codes"); here,
beside the catalog, because ``inputs.py`` reports MLS010 and the parser imports it."""

from __future__ import annotations

from .catalog import LOGGING, rule
from .problems import Severity

_GOOD = (
    ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "event_type": "POINT_IN_TIME", '
    '"key": "cache_clear", "value": true, "metadata": {"file": "x.py", "lineno": 4}}\n'
)

BAD_ENVELOPE = rule(
    "MLS001",
    "bad-envelope",
    Severity.ERROR,
    "A line carries an MLPerf marker but the text after it does not follow "
    "the generation's syntax (grammars/mllog.lark).",
    stage="parse",
    good=(
        ":::MLL 1560881700.860 submission_org: "
        '{"metadata": {"lineno": 0, "file": "N/A"}, "value": "NVIDIA"}\n'
    ),
    bad=':::MLL submission_org: {"value": "NVIDIA"}\n',
    why=(
        "The official parser keeps a marker line only if the text after the marker "
        "parses; such a line is lost to every later check, and a lost record can hide a "
        f"required key (MLLOG format: the mllog package of {LOGGING}; docs/parser.md)."
    ),
)
BAD_JSON = rule(
    "MLS002",
    "bad-json",
    Severity.ERROR,
    "The JSON payload of a record does not decode: truncated, bad nesting, "
    "stray characters. The column points at the first bad character.",
    stage="parse",
    good=_GOOD,
    bad=':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_cl\n',
    why=(
        "The official parser decodes each payload with Python's json and counts a line "
        "that fails as a parse error, not a record (docs/parser.md): the record's key is "
        "then missing for the rules."
    ),
)
NESTED_TOO_DEEP = rule(
    "MLS021",
    "nested-too-deep",
    Severity.ERROR,
    "A record's JSON payload nests arrays and objects more than 64 levels deep (the "
    "payload itself is the first): the line is not read. The column points at the "
    "bracket beyond the bound.",
    stage="parse",
    good=_GOOD,
    bad=(
        ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "event_type": '
        '"POINT_IN_TIME", "key": "seed", "value": ' + "[" * 70 + "]" * 70 + ', "metadata": {}}\n'
    ),
    why=(
        "Real records nest two or three levels. Python's json and orjson accept about "
        "1,000, and every later stage that walks a value recursively (messages, SARIF, "
        "scores, the audit) raised on one 990 deep; the bound is documented in "
        "docs/security.md."
    ),
)
NOT_AN_OBJECT = rule(
    "MLS003",
    "payload-not-object",
    Severity.ERROR,
    "A :::MLLOG payload must be a JSON object.",
    stage="parse",
    good=_GOOD,
    bad=':::MLLOG ["cache_clear", 1621532919228]\n',
    why=(
        "A record is a JSON object with key, value, time_ms and metadata (the MLLOG "
        f"format of {LOGGING}); an array or a scalar names no key, so nothing can be "
        "checked on it."
    ),
)
MISSING_FIELD = rule(
    "MLS004",
    "missing-field",
    Severity.ERROR,
    "A :::MLLOG record lacks `key` or `time_ms`; without them it is not a record.",
    stage="parse",
    good=_GOOD,
    bad=':::MLLOG {"namespace": "", "key": "cache_clear", "value": true, "metadata": {}}\n',
    why=(
        "key names what a record says and time_ms times the run; the official parser "
        "cannot make a record without them (docs/parser.md)."
    ),
)
BAD_FIELD_TYPE = rule(
    "MLS005",
    "bad-field-type",
    Severity.ERROR,
    "`key` must be a string and `time_ms` a number (a numeric string is "
    "accepted with a warning, MLS012).",
    stage="parse",
    good=_GOOD,
    bad=':::MLLOG {"time_ms": "soon", "key": "cache_clear", "value": true, "metadata": {}}\n',
    why=(
        "Rules compare key names as text and time runs from time_ms; a record of another "
        "type breaks both (docs/parser.md)."
    ),
)
MISSING_VALUE_OR_METADATA = rule(
    "MLS006",
    "missing-value-or-metadata",
    Severity.WARNING,
    "A :::MLLOG record without `value` or `metadata` is read with null/{} "
    "(the official parser crashes on it).",
    stage="parse",
    good=_GOOD,
    bad=(
        ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_clear", '
        '"value": true}\n'
    ),
    why=(
        "The official parser indexes value and metadata and stops on the whole file when "
        "one is absent (docs/parser.md); mllog-check reads on to report the rest, and "
        "MLC002 gives the official verdict."
    ),
)
NONSTANDARD_JSON = rule(
    "MLS007",
    "nonstandard-json",
    Severity.INFO,
    "The payload uses Infinity, -Infinity or NaN: not JSON, but Python's json "
    "(and so the official tools) accept it, and so does mllog-check.",
    stage="parse",
    good=_GOOD,
    bad=(
        ':::MLLOG {"namespace": "", "time_ms": 1621532919228, '
        '"key": "opt_gradient_clip_norm", "value": Infinity, "metadata": {}}\n'
    ),
    why=(
        "Infinity and NaN are not JSON (RFC 8259), but Python's json, which the official "
        "tools use, accepts them and published RNN-T logs contain Infinity; noted so that "
        "a strict JSON reader of the logs is warned."
    ),
)
BAD_ENCODING = rule(
    "MLS008",
    "bad-encoding",
    Severity.WARNING,
    "A marker line holds bytes that are not UTF-8; it is read as latin-1, "
    "as the official tools read every file.",
    stage="parse",
    good=_GOOD,
    bad=(
        ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "key": "cache_clear", '
        '"value": "caf\xe9", "metadata": {}}\n'
    ),
    why=(
        "The official tools read every file as latin-1, so their verdict never depends on "
        "the encoding; a byte that is not UTF-8 usually means a damaged or concatenated "
        "file (docs/parser.md)."
    ),
)
INPUT_ERROR = rule(
    "MLS010",
    "input-error",
    Severity.ERROR,
    "The input cannot be read: missing, a directory where a file was expected, "
    "unreadable, a broken gzip stream, a link leaving the checked tree; or (score, "
    "cost) nothing tells which round's rules apply, or that round's scoring data is not "
    "in this build.",
    stage="parse-path",
    good="fixtures/parse/clean_v1.txt",
    bad="fixtures/parse/truncated.log.gz",
    why=(
        "A file that cannot be read is never checked; reporting it keeps a missing check "
        "from looking like a pass (docs/design.md)."
    ),
)
NO_RECORDS = rule(
    "MLS011",
    "no-records",
    Severity.WARNING,
    "The input holds no MLPerf marker at all (empty, binary or an unrelated file).",
    stage="parse",
    good=_GOOD,
    bad="just some training output\nno marker here\n",
    why=(
        "A result file without any marker is not a training log (an empty file, the wrong "
        "file uploaded); the official compliance checker fails it as having no log lines "
        "(MLC001)."
    ),
)
TIME_AS_STRING = rule(
    "MLS012",
    "time-as-string",
    Severity.WARNING,
    "`time_ms` is a numeric string; the official parser converts it with float(), "
    "and so does mllog-check.",
    stage="parse",
    good=_GOOD,
    bad=(
        ':::MLLOG {"namespace": "", "time_ms": "1621532919228", "key": "cache_clear", '
        '"value": true, "metadata": {}}\n'
    ),
    why=(
        f"The MLLOG format writes time_ms as a number ({LOGGING}); the official parser "
        "converts a numeric string with float(), so the run is timed the same, but other "
        "readers may not be as lenient."
    ),
)
NOT_UTF8_FILE = rule(
    "MLS013",
    "text-encoding",
    Severity.WARNING,
    "The file is UTF-16 (it starts with a byte-order mark); it is decoded as such.",
    stage="parse-utf16",
    good=_GOOD,
    bad="\ufeff" + _GOOD,
    why=(
        "The mllog library writes UTF-8; a UTF-16 file (an editor or a shell redirect on "
        "Windows) looks like binary data to a byte reader. Decoding it keeps its records "
        "visible (docs/parser.md)."
    ),
)
LINE_TOO_LONG = rule(
    "MLS014",
    "line-too-long",
    Severity.ERROR,
    "A marker line longer than 8 MiB (8,388,608 bytes) is not parsed: it is read past in "
    "chunks and counted as one line error.",
    stage="parse-path",
    good="fixtures/parse/clean_v1.txt",
    bad="fixtures/parse/long_line.txt.gz",  # one marker line of 8 MiB and a byte
    why=(
        "Real records are under a few kilobytes; a line of gigabytes (a 1 MB gzip can "
        "hold one) would take memory without bound. The bound is documented in "
        "docs/security.md."
    ),
)
PROBLEMS_OMITTED = rule(
    "MLS015",
    "problems-omitted",
    Severity.WARNING,
    "More than 1,000 problems in one log: the first 1,000 are listed, the rest counted "
    "(line errors still count as errors).",
    stage="parse-path",
    good="fixtures/parse/clean_v1.txt",
    bad="fixtures/parse/many_errors.txt.gz",  # 1,200 marker lines, all broken
    why=(
        "A log of a million broken lines would list a million problems and send each "
        "through the grammar; past 1,000 errors the count is what matters "
        "(docs/security.md)."
    ),
)
RULE_PROBLEMS_OMITTED = rule(
    "MLS019",
    "rule-problems-omitted",
    Severity.WARNING,
    "More than 1,000 problems of one family of rules (compliance MLC, power MLE) in one "
    "log: the first 1,000 are listed, the rest counted; an error when errors are among "
    "those not listed (or with --strict).",
    stage="check-path",
    good="fixtures/check/closed_resnet_lars.pass.txt",
    bad="fixtures/check/many_rule_problems.txt.gz",  # 1,200 eval_accuracy "bad"
    why=(
        "A 3 MB gzip of bad eval_accuracy lines gave 2,000,000 problems, 573 MB of memory "
        "and 243 MB of output (check --follow: 13,000 lines a second). Rule problems are "
        "capped per log as syntax problems are (MLS015), and the verdict keeps what the "
        "omitted ones say (docs/security.md)."
    ),
)
LOG_REWRITTEN = rule(
    "MLS020",
    "log-rewritten-while-followed",
    Severity.WARNING,
    "check --follow: bytes of the log already read changed (rewritten in place, or the "
    "file truncated and written again between two polls); the verdict is check's on the "
    "file as it is at the end.",
    stage="follow",
    beyond=True,
    why=(
        "A follower reads each byte once: a header rewritten after it was read made "
        "check --follow --until run_stop pass a file that check fails. The file is read "
        "again at the end and compared with what was followed (docs/follow.md)."
    ),
)
