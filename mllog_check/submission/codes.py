"""Rule codes of the package checker (MLP) and the audit's anomaly kinds (MLA).

Examples name fixture folders (relative to the repository), or a temporary variant of
one (``link-escape: …``, ``unreadable: …``); ``examples.run_example`` runs them through
the package checker or the audit (tests/test_catalog.py, tests/test_package_catalog.py).
"""

from __future__ import annotations

from ..catalog import RuleInfo, register
from ..problems import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_CLEAN = "fixtures/package/clean/Acme"
_LAYOUT = "fixtures/package/layout/Acme"
_SYSDESC = "fixtures/package/sysdesc/Acme"
_MISMATCH = "fixtures/package/mismatch/Acme"
_AUDIT_CLEAN = "fixtures/audit/clean"
_AUDIT = "fixtures/audit/round"

__all__ = ["RuleInfo"]


def _p(code: str, name: str, sev: Severity, summary: str, bad: str, why: str = "") -> RuleInfo:
    return register(RuleInfo(code, name, sev, summary, _CLEAN, bad, "package", why))


def _a(code: str, kind: str, summary: str, why: str = "") -> RuleInfo:
    return register(RuleInfo(code, kind, W, summary, _AUDIT_CLEAN, _AUDIT, "audit", why))


# Layout of <Org>/{results,systems,benchmarks} (training_policies "Submission" section).
MISSING_SYSDESC = _p(
    "MLP001",
    "missing-system-description",
    E,
    "A results/<system> folder has no systems/<system>.json.",
    _LAYOUT,
    "Every result names its system; the description is what readers compare.",
)
BAD_RESULT_NAME = _p(
    "MLP002",
    "bad-result-name",
    E,
    "A .txt or .log file in a benchmark folder is not named result_*.txt (it would not be scored).",
    _LAYOUT,
)
RUN_COUNT = _p(
    "MLP003",
    "result-file-count",
    E,
    "A benchmark folder holds a number of result files other than the round requires "
    "(exactly N up to v1.0, at least N from v1.1).",
    _LAYOUT,
)
STRAY = _p(
    "MLP004",
    "stray-entry",
    W,
    "A file or folder that is not part of a submission (editor swap file, script, "
    "checker log, nested folder): published as is, never checked.",
    _LAYOUT,
)
UNKNOWN_BENCHMARK = _p(
    "MLP005",
    "unknown-benchmark",
    E,
    "A results/<system>/<benchmark> folder names no benchmark of the round.",
    _LAYOUT,
)
UNUSED_SYSDESC = _p(
    "MLP006",
    "unused-system-description",
    W,
    "systems/<system>.json has no results/<system> folder.",
    _LAYOUT,
)
LINK_ESCAPE = _p(
    "MLP007",
    "link-leaves-tree",
    E,
    "A symbolic link points outside the checked folder: not followed.",
    f"link-escape: {_CLEAN}",
)
UNREADABLE = _p(
    "MLP008",
    "unreadable-file",
    E,
    "A system description or a folder of the submission cannot be read (permissions, "
    "broken link, a folder named like a file); unreadable logs are the parser's MLS010.",
    f"unreadable: {_CLEAN}",
)
INVALID_JSON = _p(
    "MLP010",
    "invalid-json",
    E,
    "A system description is not valid JSON; the position is the decoder's.",
    _SYSDESC,
)
SCHEMA = _p(
    "MLP011",
    "system-description-schema",
    E,
    "A system description misses a required field of the round or has a value the "
    "round does not allow (schemas/system_description/<round>.json).",
    _SYSDESC,
    "The official checker tests key presence only.",
)
PLACEHOLDER = _p(
    "MLP012",
    "placeholder-value",
    W,
    "A system description field still holds a placeholder such as TODO or TBD.",
    _SYSDESC,
)
DIVISION_MISMATCH = _p(
    "MLP020",
    "division-mismatch",
    E,
    "The submission_division a log declares differs from its system description's division.",
    _MISMATCH,
    "Real case: logs say closed where the JSON says open; the official tools never compare.",
)
STATUS_MISMATCH = _p(
    "MLP021",
    "status-mismatch",
    E,
    "The submission_status a log declares differs from its system description's status "
    "(a description's available agrees with onprem and cloud).",
    _MISMATCH,
)
ORG_MISMATCH = _p(
    "MLP022",
    "submitter-mismatch",
    E,
    "The submission_org of a log, the system description's submitter and the org folder "
    "name disagree (compared ignoring case and punctuation; a prefix such as "
    "Habana/HabanaLabs is accepted).",
    _MISMATCH,
)
PLATFORM_MISMATCH = _p(
    "MLP023",
    "platform-mismatch",
    W,
    "Runs of one result set declare different submission_platform values.",
    _MISMATCH,
)
BENCHMARK_MISMATCH = _p(
    "MLP024",
    "benchmark-mismatch",
    E,
    "The submission_benchmark a log declares differs from its benchmark folder.",
    _MISMATCH,
)
STAGE_MISSING = _p(
    "MLP030",
    "stage-unavailable",
    INFO,
    "A checking stage (compliance rules, scores) is not installed in this build: its "
    "checks were not run, so the verdict is partial.",
    "",  # a build without a stage: tests/test_package.py removes one
)
STAGE_FAILED = _p(
    "MLP031",
    "stage-failed",
    E,
    "A checking stage raised an error on this input; the message names it. Reported so "
    "that one bad file never stops the check of the others.",
    "",  # defensive: tests/test_package.py makes a stage raise
)

# Audit anomaly kinds (docs/audit.md). The rule name is the `kind` column of the report.
LINES_AFTER_STOP = _a(
    "MLA001",
    "lines-after-run-stop",
    "Records after run_stop: a sign of concatenated or hand-edited logs.",
)
TIME_ZERO = _a(
    "MLA002",
    "time-zero",
    "A timed record (init/run/epoch/block/eval) has time_ms 0: written by hand.",
)
TIME_CONSTANT = _a(
    "MLA003",
    "time-constant",
    "Every timed record of a run carries the same time_ms (or run_stop equals run_start).",
)
TIME_BACKWARDS = _a(
    "MLA004",
    "time-backwards",
    "time_ms goes backwards by more than a second between consecutive timed records "
    "(init/run/epoch/block/eval; interleaved ranks jitter by milliseconds).",
)
DUPLICATE_LOG = _a(
    "MLA005",
    "duplicate-log",
    "Two result files have identical record sequences (keys, values, times, metadata), "
    "paths ignored: one log published twice.",
)
REPEATED_SEED = _a(
    "MLA006",
    "repeated-seed",
    "Two runs of one result set log the same seed (rules: seeds must differ per run).",
)
ABORTED_RUN = _a(
    "MLA007",
    "aborted-run",
    "A log with run_start and no run_stop: the run was cut off.",
)
NOT_CONVERGED = _a(
    "MLA008",
    "not-converged",
    "run_stop status is not success (abort, aborted): the run did not reach the target.",
)
AUDIT_ORG_MISMATCH = _a(
    "MLA009",
    "org-mismatch",
    "A log's submission_org (or its system description's submitter) is not its org folder.",
)
PUBLISHED_FAILING = _a(
    "MLA010",
    "published-but-failing",
    "A published log or result set has error-level problems (syntax, compliance, layout, "
    "consistency, scores).",
)
AUDIT_STRAY = _a(
    "MLA011",
    "stray-file",
    "A published file that is not part of a submission (see MLP004).",
)

ANOMALY_KINDS: dict[str, RuleInfo] = {
    info.name: info
    for info in (
        LINES_AFTER_STOP,
        TIME_ZERO,
        TIME_CONSTANT,
        TIME_BACKWARDS,
        DUPLICATE_LOG,
        REPEATED_SEED,
        ABORTED_RUN,
        NOT_CONVERGED,
        AUDIT_ORG_MISMATCH,
        PUBLISHED_FAILING,
        AUDIT_STRAY,
    )
}
