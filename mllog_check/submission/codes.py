"""Rule codes of the package checker (MLP) and the audit's anomaly kinds (MLA).

Examples name fixture folders (relative to the repository), or a temporary variant of
one (``link-escape: …``, ``unreadable: …``); tests/catalog_examples.py runs them through
the package checker or the audit (tests/test_catalog.py, tests/test_package_catalog.py).
"""

from __future__ import annotations

from ..catalog import RuleInfo, register
from ..power.codes import AUDIT_KINDS, AUDIT_OF_PROBLEM
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


def _a(code: str, kind: str, summary: str, why: str = "", bad: str = _AUDIT) -> RuleInfo:
    return register(RuleInfo(code, kind, W, summary, _AUDIT_CLEAN, bad, "audit", why))


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
    W,
    "A .txt or .log file in a benchmark folder is not named result_*.txt (it would not be "
    "scored). Beyond the official checker, which only warns; the file count is MLP003.",
    _LAYOUT,
)
RUN_COUNT = _p(
    "MLP003",
    "result-file-count",
    E,
    "A benchmark folder holds a number of result files other than the round requires "
    "(exactly N in every round, as the official package checker requires; the summarizer "
    "scores more from v1.1).",
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
    W,
    "A results/<system>/<benchmark> folder names no benchmark of the round: never checked "
    "or scored. The official checker skips such a folder with a warning.",
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
    "A system description fails what the round's official system-description check "
    "rejects: a missing required field (from v1.0), a file that is not a JSON object, and "
    "from v4.1 a status other than the four official values.",
    _SYSDESC,
    "The official checker tests key presence (and from v4.1 the status value) only; "
    "stricter value checks are MLP100.",
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
    W,
    "The submission_division a log declares differs from its system description's division "
    "(beyond the official checker).",
    _MISMATCH,
    "Real case: logs say closed where the JSON says open; the official tools never compare.",
)
STATUS_MISMATCH = _p(
    "MLP021",
    "status-mismatch",
    W,
    "The submission_status a log declares differs from its system description's status "
    "(a description's available agrees with onprem and cloud; beyond the official checker).",
    _MISMATCH,
)
ORG_MISMATCH = _p(
    "MLP022",
    "submitter-mismatch",
    W,
    "The submission_org of a log, the system description's submitter and the org folder "
    "name disagree (compared ignoring case and punctuation; a prefix such as "
    "Habana/HabanaLabs is accepted; beyond the official checker: resellers' logs built on "
    "another org's code often name that org).",
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
    W,
    "The submission_benchmark a log declares differs from its benchmark folder (beyond the "
    "official checker).",
    _MISMATCH,
)
SEED_NOT_LOGGED = _p(
    "MLP040",
    "seed-not-logged",
    E,
    "Closed division (the system description's): a run logs no seed where the round's "
    "official seed check requires one: from v5.0 every run; v1.0 to v4.1 a run after "
    "(in file-name order) one of the same result that logs a seed.",
    "fixtures/package/seeds/Acme",
    "mlcommons/logging#87 (v1.0: all runs or none) and #384 with training_policies#546 "
    "(from v5.0: always).",
)
SYSDESC_ADVICE = _p(
    "MLP100",
    "system-description-advice",
    W,
    "A system description value the round's official check accepts but the rules' format "
    "does not: a division other than closed/open, a status outside the round's categories "
    "(before v4.1), a list where text or an object is expected, a node count that is not a "
    "whole number; missing fields before v1.0 (the official checker did not read them).",
    _SYSDESC,
    "Advice beyond the official checker: an error only with --strict.",
)
BYPASS_FILE = _p(
    "MLP101",
    "bypass-file-ignored",
    INFO,
    "A package_checker_params file asks the official checker to bypass the RCP or seed "
    "check; mllog-check judges convergence and seeds without bypass.",
    _LAYOUT,
    "A bypass is a committee decision, not a property of the logs.",
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

# Warnings beyond the round's official package checker: --strict makes them errors.
# (MLC warnings are the compliance engine's own, promoted by check_log(strict=True).)
BEYOND_OFFICIAL: frozenset[str] = frozenset(
    {
        BAD_RESULT_NAME.code,
        STRAY.code,
        UNKNOWN_BENCHMARK.code,
        UNUSED_SYSDESC.code,
        PLACEHOLDER.code,
        DIVISION_MISMATCH.code,
        STATUS_MISMATCH.code,
        ORG_MISMATCH.code,
        PLATFORM_MISMATCH.code,
        BENCHMARK_MISMATCH.code,
        SYSDESC_ADVICE.code,
    }
)
DECLARED_MISMATCH = _a(
    "MLA012",
    "declared-mismatch",
    "What logs declare (division, status, platform, benchmark) disagrees with the system "
    "description, the folder or the other runs (MLP020, MLP021, MLP023, MLP024: warnings "
    "beyond the official checker).",
    bad="fixtures/package/mismatch",
)
AUDIT_SYSDESC_ADVICE = _a(
    "MLA013",
    "system-description-format",
    "A system description value the official check accepts but the rules' format does not "
    "(MLP100).",
    bad="fixtures/package/sysdesc",
)
UNCHECKED_RESULT = _a(
    "MLA014",
    "unchecked-result",
    "A published log the official tools never check or score: a result file not named "
    "result_*.txt (MLP002) or a folder naming no benchmark of the round (MLP005).",
    bad="fixtures/package/layout",
)
_SETS = "fixtures/audit/sets"
TARGET_NOT_REACHED = _a(
    "MLA015",
    "target-not-reached",
    "run_stop says success, so the run is timed and counted, but no evaluation before it "
    "reaches the round's quality target (not claimed where the target is not known).",
    bad=_SETS,
)
BATCH_DIFFERS = _a(
    "MLA016",
    "batch-size-differs",
    "Runs of one result log different global_batch_size values (the RCP check takes one "
    "batch size per result); the runs unlike the most common value are named.",
    bad=_SETS,
)
RUNS_APART = _a(
    "MLA017",
    "runs-far-apart",
    "A run's first timestamp is more than 14 days from the median of its result's runs "
    "(another campaign, or a clock in another unit).",
    bad=_SETS,
)
TIME_MS_ZERO = _a(
    "MLA030",
    "time-ms-zero",
    "A record other than a timed one has time_ms 0 (what MLC107 warns about): a line added "
    "by hand, such as the one all 30 Intel v1.0 DLRM logs end with. One row per file.",
)

ANOMALY_KINDS: dict[str, RuleInfo] = {
    info.name: info
    for info in (
        LINES_AFTER_STOP,
        TIME_ZERO,
        TIME_MS_ZERO,
        TIME_CONSTANT,
        TIME_BACKWARDS,
        DUPLICATE_LOG,
        REPEATED_SEED,
        ABORTED_RUN,
        NOT_CONVERGED,
        AUDIT_ORG_MISMATCH,
        PUBLISHED_FAILING,
        AUDIT_STRAY,
        DECLARED_MISMATCH,
        AUDIT_SYSDESC_ADVICE,
        UNCHECKED_RESULT,
        TARGET_NOT_REACHED,
        BATCH_DIFFERS,
        RUNS_APART,
    )
}
# Package warnings the audit shows as anomalies of their own kind.
ANOMALY_OF_PROBLEM: dict[str, str] = {
    STRAY.code: AUDIT_STRAY.name,
    ORG_MISMATCH.code: AUDIT_ORG_MISMATCH.name,
    DIVISION_MISMATCH.code: DECLARED_MISMATCH.name,
    STATUS_MISMATCH.code: DECLARED_MISMATCH.name,
    PLATFORM_MISMATCH.code: DECLARED_MISMATCH.name,
    BENCHMARK_MISMATCH.code: DECLARED_MISMATCH.name,
    SYSDESC_ADVICE.code: AUDIT_SYSDESC_ADVICE.name,
    BAD_RESULT_NAME.code: UNCHECKED_RESULT.name,
    UNKNOWN_BENCHMARK.code: UNCHECKED_RESULT.name,
}

# Power anomaly kinds (MLA040-MLA049) are registered with the power rules (MLE).

ANOMALY_KINDS.update(AUDIT_KINDS)
ANOMALY_OF_PROBLEM.update(AUDIT_OF_PROBLEM)
