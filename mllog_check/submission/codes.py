"""Rule codes of the package checker (MLP) and the audit's anomaly kinds (MLA).

Examples name fixture folders (relative to the repository), most failing ones the clean
folder with the edits that make it fail (scripts/example_folders.py: text, not code), or a
variant of one (``link-escape: …``, ``unreadable: …``); tests/catalog_examples.py runs them
through the package checker or the audit (tests/test_catalog.py,
tests/test_package_catalog.py).
"""

from __future__ import annotations

from ..catalog import LOGGING, SUBMISSION_RULES, TRAINING_RULES, RuleInfo, register
from ..power.codes import AUDIT_KINDS, AUDIT_OF_PROBLEM
from ..problems import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_CLEAN = "fixtures/package/clean/Acme"
_AUDIT_CLEAN = "fixtures/audit/clean"
_AUDIT = "fixtures/audit/round"

__all__ = ["RuleInfo"]


def _clean(*edits: str) -> str:
    """A failing example: the clean submission with edits (scripts/example_folders.py)."""
    return "\n".join((_CLEAN, *edits))


def _round(*edits: str) -> str:
    """A failing audit example: the clean round with edits (scripts/example_folders.py)."""
    return "\n".join((_AUDIT_CLEAN, *edits))


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
    _clean("delete systems/acme-8x.json"),
    "Every result names its system; the description is what readers compare.",
)
BAD_RESULT_NAME = _p(
    "MLP002",
    "bad-result-name",
    W,
    "A .txt or .log file in a benchmark folder is not named result_*.txt (it would not be "
    "scored). Beyond the official checker, which only warns; the file count is MLP003.",
    _clean("rename results/acme-8x/resnet/result_4.txt -> results/acme-8x/resnet/run_4.log"),
    why=(
        "The official tools read only result_*.txt; a log named otherwise is published "
        "but neither checked nor scored (docs/package.md)."
    ),
)
RUN_COUNT = _p(
    "MLP003",
    "result-file-count",
    E,
    "A benchmark folder holds a number of result files other than the round requires "
    "(exactly N in every round, as the official package checker requires; the summarizer "
    "scores more from v1.1).",
    _clean("delete results/acme-8x/resnet/result_4.txt"),
    why=(
        f"Each round requires a number of runs per benchmark ({TRAINING_RULES}); the "
        f"official package checker ({LOGGING}) fails another count."
    ),
)
STRAY = _p(
    "MLP004",
    "stray-entry",
    W,
    "A file or folder that is not part of a submission (editor swap file, script, "
    "checker log, nested folder): published as is, never checked.",
    _clean("append results/acme-8x/resnet/run.sh: python train.py"),
    why=(
        f"A submission holds results, systems and benchmarks ({SUBMISSION_RULES}, "
        "directory structure); anything else is published unchecked (docs/package.md)."
    ),
)
UNKNOWN_BENCHMARK = _p(
    "MLP005",
    "unknown-benchmark",
    W,
    "A results/<system>/<benchmark> folder names no benchmark of the round: never checked "
    "or scored. The official checker skips such a folder with a warning.",
    _clean(
        "copy fixtures/package/clean/Acme/results/acme-8x/resnet/result_0.txt "
        "-> results/acme-8x/gpt9/result_0.txt"
    ),
    why=(
        "The official checker skips a folder naming no benchmark of the round, so its "
        "logs are never checked or scored (docs/package.md)."
    ),
)
UNUSED_SYSDESC = _p(
    "MLP006",
    "unused-system-description",
    W,
    "systems/<system>.json has no results/<system> folder.",
    _clean("copy fixtures/package/clean/Acme/systems/acme-8x.json -> systems/acme-32x.json"),
    why=(
        "A description without results describes nothing published; often a system folder "
        "renamed on one side only (docs/package.md)."
    ),
)
LINK_ESCAPE = _p(
    "MLP007",
    "link-leaves-tree",
    E,
    "A symbolic link points outside the checked folder: not followed.",
    f"link-escape: {_CLEAN}",
    why=(
        "Following a link out of the tree would check files that are not part of the "
        "submission (docs/package.md)."
    ),
)
UNREADABLE = _p(
    "MLP008",
    "unreadable-file",
    E,
    "A system description or a folder of the submission cannot be read (permissions, "
    "broken link, a folder named like a file); unreadable logs are the parser's MLS010.",
    f"unreadable: {_CLEAN}",
    why=(
        "What cannot be read cannot be checked; reported so that a missing check is not a "
        "pass (docs/package.md)."
    ),
)
INVALID_JSON = _p(
    "MLP010",
    "invalid-json",
    E,
    "A system description is not valid JSON; the position is the decoder's.",
    _clean('replace systems/acme-8x.json: "sw_notes": "" => "sw_notes": "",'),
    why=(
        "The official system-description check loads the file as JSON and fails it when "
        f"it cannot ({LOGGING}, package_checker)."
    ),
)
SCHEMA = _p(
    "MLP011",
    "system-description-schema",
    E,
    "A system description fails what the round's official system-description check "
    "rejects: a missing required field (from v1.0), a file that is not a JSON object, and "
    "from v4.1 a status other than the four official values.",
    _clean('delete-line systems/acme-8x.json: "cooling"'),
    "The official checker tests key presence (and from v4.1 the status value) only; "
    "stricter value checks are MLP100.",
)
PLACEHOLDER = _p(
    "MLP012",
    "placeholder-value",
    W,
    "A system description field still holds a placeholder such as TODO or TBD.",
    _clean('replace systems/acme-8x.json: "hw_notes": "" => "hw_notes": "TODO"'),
    why=(
        "Placeholders are published as the system's description, and readers compare "
        "these fields (docs/package.md)."
    ),
)
DIVISION_MISMATCH = _p(
    "MLP020",
    "division-mismatch",
    W,
    "The submission_division a log declares differs from its system description's division "
    "(beyond the official checker).",
    _clean('replace results/acme-8x/resnet/result_0.txt: "value": "open" => "value": "closed"'),
    "Real case: logs say closed where the JSON says open; the official tools never compare.",
)
STATUS_MISMATCH = _p(
    "MLP021",
    "status-mismatch",
    W,
    "The submission_status a log declares differs from its system description's status "
    "category (available, preview, research: onprem, cloud and available are one category; "
    "beyond the official checker).",
    _clean('replace results/acme-8x/resnet/result_1.txt: "value": "onprem" => "value": "preview"'),
    why=(
        "The status (available, preview, research) decides the category a result is "
        f"published in ({SUBMISSION_RULES}); the log and the description should agree."
    ),
)
ORG_MISMATCH = _p(
    "MLP022",
    "submitter-mismatch",
    W,
    "The submission_org of a log, the system description's submitter and the org folder "
    "name disagree (compared ignoring case and punctuation; a prefix such as "
    "Habana/HabanaLabs is accepted; beyond the official checker: resellers' logs built on "
    "another org's code often name that org).",
    _clean('replace results/acme-8x/resnet/result_2.txt: "value": "Acme" => "value": "Globex"'),
    why=(
        "The org folder is the submitter of record; a log naming another org may be "
        "another org's run (docs/package.md)."
    ),
)
PLATFORM_MISMATCH = _p(
    "MLP023",
    "platform-mismatch",
    W,
    "Runs of one result set declare different submission_platform values.",
    _clean(
        'replace results/acme-8x/resnet/result_3.txt: "value": "acme-8x" => "value": "acme-16x"'
    ),
    why=(
        f"A result set is the runs of one system ({TRAINING_RULES}); different platforms "
        "mean runs of different systems."
    ),
)
BENCHMARK_MISMATCH = _p(
    "MLP024",
    "benchmark-mismatch",
    W,
    "The submission_benchmark a log declares differs from its benchmark folder (beyond the "
    "official checker).",
    _clean('replace results/acme-8x/resnet/result_4.txt: "value": "resnet" => "value": "ssd"'),
    why=(
        "A log in another benchmark's folder is checked and scored as that benchmark "
        "(docs/package.md)."
    ),
)
RUN_FILED_TWICE = _p(
    "MLP025",
    "run-filed-twice",
    W,
    "A run whose log has the same run_start and run_stop times and the same eval_accuracy "
    "values as a log of another system folder of the org: one run filed under two systems "
    "(byte-identical or edited copies; beyond the official checker).",
    _clean(
        "copy fixtures/package/clean/Acme/results/acme-8x -> results/acme-8x-copy",
        "copy fixtures/package/clean/Acme/systems/acme-8x.json -> systems/acme-8x-copy.json",
    ),
    why=(
        "Each result must come from its own runs on its system "
        f"({SUBMISSION_RULES}); the audit finds such copies in published results (v5.1), "
        "the package checker a submitter runs before upload says so first "
        "(docs/package.md)."
    ),
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
    _clean('replace systems/acme-8x.json: "number_of_nodes": "1" => "number_of_nodes": "1.5"'),
    "Advice beyond the official checker: an error only with --strict.",
)
BYPASS_FILE = _p(
    "MLP101",
    "bypass-file-ignored",
    INFO,
    "A package_checker_params file asks the official checker to bypass the RCP or seed "
    "check; mllog-check judges convergence and seeds without bypass.",
    _clean("append results/acme-8x/resnet/package_checker_params: rcp-bypass"),
    "A bypass is a committee decision, not a property of the logs.",
)
STAGE_MISSING = _p(
    "MLP030",
    "stage-unavailable",
    INFO,
    "A checking stage (compliance rules, scores) is not installed in this build: its "
    "checks were not run, so the verdict is partial.",
    "",
    why=(
        "A stage that did not run is not a pass: the verdict says it is partial (docs/package.md)."
    ),
    # a build without a stage: tests/test_package.py removes one
)
STAGE_FAILED = _p(
    "MLP031",
    "stage-failed",
    E,
    "A checking stage raised an error on this input; the message names it. Reported so "
    "that one bad file never stops the check of the others.",
    "",
    why=(
        "One stage failing on one file must neither stop the others nor pass that file "
        "silently (docs/package.md)."
    ),
    # defensive: tests/test_package.py makes a stage raise
)

# Audit anomaly kinds (docs/audit.md). The rule name is the `kind` column of the report.
LINES_AFTER_STOP = _a(
    "MLA001",
    "lines-after-run-stop",
    "Records after run_stop: a sign of concatenated or hand-edited logs.",
    why=(
        "Records after run_stop are not part of the timed run; they suggest concatenated "
        "or edited logs (docs/audit.md)."
    ),
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_0.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 1621000309026, "event_type": '
        '"POINT_IN_TIME", "key": "eval_accuracy", "value": 0.81, "metadata": '
        '{"file": "train.py", "lineno": 1, "epoch_num": 5}}'
    ),
)
TIME_ZERO = _a(
    "MLA002",
    "time-zero",
    "A timed record (init/run/epoch/block/eval) has time_ms 0: written by hand.",
    why=("Timed records make time to train; a zero there was written by hand (docs/audit.md)."),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_1.txt: "time_ms": '
        '1621003660001, "event_type": "INTERVAL_START", "key": "epoch_start" => '
        '"time_ms": 0, "event_type": "INTERVAL_START", "key": "epoch_start"'
    ),
)
TIME_CONSTANT = _a(
    "MLA003",
    "time-constant",
    "Every timed record of a run carries the same time_ms (or run_stop equals run_start).",
    why=(
        "A real run's timestamps advance; identical ones mean a generated or rewritten "
        "log (docs/audit.md)."
    ),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_2.txt: "time_ms": '
        '1621007508026, "event_type": "INTERVAL_END", "key": "run_stop" => '
        '"time_ms": 1621007260001, "event_type": "INTERVAL_END", "key": '
        '"run_stop"'
    ),
)
TIME_BACKWARDS = _a(
    "MLA004",
    "time-backwards",
    "time_ms goes backwards by more than a second between consecutive timed records "
    "(init/run/epoch/block/eval; interleaved ranks jitter by milliseconds).",
    why=(
        "Time to train assumes a clock that runs forward; a step back of seconds means "
        "clock trouble or spliced logs (docs/audit.md)."
    ),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_3.txt: "time_ms": '
        '1621010923001 => "time_ms": 1621010855001'
    ),
)
DUPLICATE_LOG = _a(
    "MLA005",
    "duplicate-log",
    "Two result files have identical record sequences (keys, values, times, metadata), "
    "paths ignored: one log published twice.",
    why=("A log published twice counts one run twice (docs/audit.md)."),
    bad=_round(
        "copy fixtures/audit/clean/Acme/results/acme-8x/resnet/result_0.txt -> "
        "Acme/results/acme-8x/resnet/result_1.txt"
    ),
)
REPEATED_SEED = _a(
    "MLA006",
    "repeated-seed",
    "Two runs of one result set log the same seed (rules: seeds must differ per run).",
    why=(
        f"Seeds must differ per run ({TRAINING_RULES}); a repeated one suggests a run "
        "copied or rerun unchanged (docs/audit.md)."
    ),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_1.txt: "key": "seed", '
        '"value": 2 => "key": "seed", "value": 1'
    ),
)
ABORTED_RUN = _a(
    "MLA007",
    "aborted-run",
    "A log with run_start and no run_stop: the run was cut off.",
    why=("A run without run_stop was cut off and has no time to train (docs/audit.md)."),
    bad=_round('delete-line Acme/results/acme-8x/resnet/result_0.txt: "run_stop"'),
)
NOT_CONVERGED = _a(
    "MLA008",
    "not-converged",
    "run_stop status is not success (abort, aborted): the run did not reach the target.",
    why=(
        "A failed run may stand for the dropped slowest once; the audit lists such "
        "published runs (docs/audit.md)."
    ),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_4.txt: "status": "success" '
        '=> "status": "aborted"'
    ),
)
AUDIT_ORG_MISMATCH = _a(
    "MLA009",
    "org-mismatch",
    "A log's submission_org (or its system description's submitter) is not its org folder.",
    why=(
        "A log naming another org suggests runs or code borrowed from another submitter "
        "(docs/audit.md)."
    ),
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_0.txt: "value": "Acme" => "value": "Globex"'
    ),
)
PUBLISHED_FAILING = _a(
    "MLA010",
    "published-but-failing",
    "A published log or result set has error-level problems (syntax, compliance, layout, "
    "consistency, scores).",
    why=(
        "Published results should pass the tools of their round; the audit lists those "
        "that do not (docs/audit.md)."
    ),
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_4.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 1621014620000, "key": "eval_acc'
    ),
)
AUDIT_STRAY = _a(
    "MLA011",
    "stray-file",
    "A published file that is not part of a submission (see MLP004).",
    why=(
        "Leftover files are published with the results without being checked (MLP004; "
        "docs/audit.md)."
    ),
    bad=_round("append Acme/results/acme-8x/resnet/run.sh: python train.py"),
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
        RUN_FILED_TWICE.code,
        SYSDESC_ADVICE.code,
    }
)
DECLARED_MISMATCH = _a(
    "MLA012",
    "declared-mismatch",
    "What logs declare (division, status, platform, benchmark) disagrees with the system "
    "description, the folder or the other runs (MLP020, MLP021, MLP023, MLP024: warnings "
    "beyond the official checker).",
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_0.txt: "value": "open" => "value": "closed"'
    ),
    why=(
        "What a log declares should match what is published about its system and result "
        "(docs/audit.md)."
    ),
)
AUDIT_SYSDESC_ADVICE = _a(
    "MLA013",
    "system-description-format",
    "A system description value the official check accepts but the rules' format does not "
    "(MLP100).",
    bad=_round('replace Acme/systems/acme-8x.json: "division": "open" => "division": "close"'),
    why=(
        "System descriptions are what readers compare across submitters "
        f"({SUBMISSION_RULES}); values outside the rules' format mislead (docs/audit.md)."
    ),
)
UNCHECKED_RESULT = _a(
    "MLA014",
    "unchecked-result",
    "A published log the official tools never check or score: a result file not named "
    "result_*.txt (MLP002) or a folder naming no benchmark of the round (MLP005).",
    bad=_round(
        "rename Acme/results/acme-8x/resnet/result_4.txt -> Acme/results/acme-8x/resnet/run_4.log"
    ),
    why=("A log the official tools never read is published but unverified (docs/audit.md)."),
)
TARGET_NOT_REACHED = _a(
    "MLA015",
    "target-not-reached",
    "run_stop says success, so the run is timed and counted, but no evaluation before it "
    "reaches the round's quality target (not claimed where the target is not known).",
    bad=_round('replace Acme/results/acme-8x/resnet/result_0.txt: "value": 0.78 => "value": 0.7'),
    why=(
        "The official summarizer times and counts a run that says success; if it never "
        "reached the target, the result is better than earned (docs/audit.md)."
    ),
)
BATCH_DIFFERS = _a(
    "MLA016",
    "batch-size-differs",
    "Runs of one result log different global_batch_size values (the RCP check takes one "
    "batch size per result); the runs unlike the most common value are named.",
    bad=_round('replace Acme/results/acme-8x/resnet/result_1.txt: "value": 256 => "value": 512'),
    why=(
        "One result is one configuration; runs with different batch sizes do not measure "
        "the same thing and the RCP check takes one batch size (docs/audit.md)."
    ),
)
RUNS_APART = _a(
    "MLA017",
    "runs-far-apart",
    "A run's first timestamp is more than 14 days from the median of its result's runs "
    "(another campaign, or a clock in another unit).",
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_2.txt: "time_ms": '
        '1621007200000 => "time_ms": 1623599200000'
    ),
    why=(
        "Runs of one submission are taken within days; weeks apart suggest a run of "
        "another campaign or a clock in another unit (docs/audit.md)."
    ),
)
_R0 = "Acme/results/acme-8x/resnet/result_0.txt"
_COPY_16X = (
    "copy fixtures/audit/clean/Acme/results/acme-8x -> Acme/results/acme-16x",
    "copy fixtures/audit/clean/Acme/systems/acme-8x.json -> Acme/systems/acme-16x.json",
    'replace Acme/results/acme-16x/resnet/result_0.txt: "value": "acme-8x" => "value": "acme-16x"',
)
SHARED_WINDOW = _a(
    "MLA018",
    "shared-run-window",
    "A run shares its run_start and run_stop time_ms with a run of another result (another "
    "system, org or round) although the files differ: one run published twice, edited. The "
    "message names both files and the lines that differ.",
    bad=_round(*_COPY_16X),
    why=(
        "No two runs start and stop at the same milliseconds; a re-filed copy counts one "
        "run in two results (docs/audit.md)."
    ),
)
SHARED_CURVE = _a(
    "MLA019",
    "shared-eval-curve",
    "A run logs the same evaluation curve (eval_accuracy values with their epochs or "
    "samples, at least two) as a run of another result, with another timed window: one "
    "run's convergence re-used with its times rewritten.",
    bad=_round(
        *_COPY_16X,
        f'replace {_R0}: "value": 0.78 => "value": 0.781234',
        'replace Acme/results/acme-16x/resnet/result_0.txt: "value": 0.78 => "value": 0.781234',
        'replace Acme/results/acme-16x/resnet/result_0.txt: "time_ms": 1621000060001, '
        '"event_type": "INTERVAL_START" => "time_ms": 1621000061001, "event_type": '
        '"INTERVAL_START"',
    ),
    why=(
        "Evaluation values with many digits do not repeat across runs; the same curve "
        "means the same run (docs/audit.md)."
    ),
)
DUPLICATE_COUNTED = _a(
    "MLA020",
    "duplicate-run-counted",
    "Two runs of one result set are one run (same record sequence, timed window or "
    "evaluation curve): the score counts it twice. The message shows the published score "
    "and the score recomputed without the copy.",
    bad=_round(
        f"copy fixtures/audit/clean/{_R0} -> Acme/results/acme-8x/resnet/result_1.txt",
        'replace Acme/results/acme-8x/resnet/result_1.txt: "key": "seed", "value": 1 => '
        '"key": "seed", "value": 7',
    ),
    why=("The olympic mean assumes independent runs; a copy weighs one run twice (docs/audit.md)."),
)
TIME_MS_ZERO = _a(
    "MLA030",
    "time-ms-zero",
    "A record other than a timed one has time_ms 0 (what MLC107 warns about): a line added "
    "by hand, such as the one all 30 Intel v1.0 DLRM logs end with. One row per file.",
    why=(
        "A record at time_ms 0 outside the timed ones is a line added by hand after the "
        "run, as in published Intel v1.0 DLRM logs (docs/audit.md)."
    ),
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_1.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 0, "event_type": "POINT_IN_TIME", "key": '
        '"submission_poc_name", "value": "A. Person", "metadata": {"file": '
        '"train.py", "lineno": 1}}'
    ),
)
NOT_AUDITED = _a(
    "MLA021",
    "not-audited",
    "A folder of the round that is not audited: it holds no results/ folder, or it is a "
    "symbolic link (never followed). Nothing in it was checked.",
    why=(
        "An audit that skips a folder in silence would report a round as clean without "
        "reading it: nothing checked is never success (docs/security.md)."
    ),
    bad=_round("append Zeta/results.txt: not a results folder"),
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
        SHARED_WINDOW,
        SHARED_CURVE,
        DUPLICATE_COUNTED,
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
