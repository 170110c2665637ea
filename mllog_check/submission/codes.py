"""Rule codes of the package checker (MLP) and the audit's anomaly kinds (MLA).

Examples name fixture folders (relative to the repository), most failing ones the clean
folder with the edits that make it fail (scripts/example_folders.py: text, not code), or a
variant of one (``link-escape: …``, ``unreadable: …``); tests/catalog_examples.py runs them
through the package checker or the audit (tests/test_catalog.py,
tests/test_package_catalog.py). A table of ``catalog.rule`` entries (docs/design.md, "Rule
codes"); ``beyond=True`` marks the package's advice beyond the official checker.
"""

from __future__ import annotations

from ..catalog import (
    LOGGING,
    PREVIEW,
    SUBMISSION_RULES,
    TRAINING_RULES,
    RuleInfo,
    family,
    retire,
    rule,
)
from ..power import codes as _power_codes  # noqa: F401  (registers the power kinds first)
from ..problems import Severity
from ..results import codes as _results_codes

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


# Retired codes (catalog.retire): never reported, never given out again.
retire(
    "MLP030",
    "stage-unavailable",
    why=(
        "Said that the compliance or scores stage was missing from the build. Every stage "
        "ships with the package, so only a test hiding a module could trigger it; what "
        "cannot be checked is still never a pass: a round without the data of every stage "
        "is a usage error (exit 2), a stage raising on a log is MLP031."
    ),
    version="0.1.0",
)

# Layout of <Org>/{results,systems,benchmarks} (training_policies "Submission" section).
MISSING_SYSDESC = rule(
    "MLP001",
    "missing-system-description",
    E,
    "A results/<system> folder has no systems/<system>.json.",
    stage="package",
    good=_CLEAN,
    bad=_clean("delete systems/acme-8x.json"),
    why="Every result names its system; the description is what readers compare.",
)
BAD_RESULT_NAME = rule(
    "MLP002",
    "bad-result-name",
    W,
    "A .txt or .log file in a benchmark folder is not named result_*.txt (it would not be "
    "scored). Beyond the official checker, which only warns; the file count is MLP003.",
    stage="package",
    good=_CLEAN,
    bad=_clean("rename results/acme-8x/resnet/result_4.txt -> results/acme-8x/resnet/run_4.log"),
    why=(
        "The official tools read only result_*.txt; a log named otherwise is published "
        "but neither checked nor scored (docs/package.md)."
    ),
    beyond=True,
)
RUN_COUNT = rule(
    "MLP003",
    "result-file-count",
    E,
    "A benchmark folder holds a number of result files other than the round requires "
    "(exactly N in every round, as the official package checker requires; the summarizer "
    "scores more from v1.1).",
    stage="package",
    good=_CLEAN,
    bad=_clean("delete results/acme-8x/resnet/result_4.txt"),
    why=(
        f"Each round requires a number of runs per benchmark ({TRAINING_RULES}); the "
        f"official package checker ({LOGGING}) fails another count."
    ),
)
STRAY = rule(
    "MLP004",
    "stray-entry",
    W,
    "A file or folder that is not part of a submission (editor swap file, script, "
    "checker log, nested folder): published as is, never checked.",
    stage="package",
    good=_CLEAN,
    bad=_clean("append results/acme-8x/resnet/run.sh: python train.py"),
    why=(
        f"A submission holds results, systems and benchmarks ({SUBMISSION_RULES}, "
        "directory structure); anything else is published unchecked (docs/package.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
UNKNOWN_BENCHMARK = rule(
    "MLP005",
    "unknown-benchmark",
    W,
    "A results/<system>/<benchmark> folder names no benchmark of the round: never checked "
    "or scored. The official checker skips such a folder with a warning.",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        "copy fixtures/package/clean/Acme/results/acme-8x/resnet/result_0.txt "
        "-> results/acme-8x/gpt9/result_0.txt"
    ),
    why=(
        "The official checker skips a folder naming no benchmark of the round, so its "
        "logs are never checked or scored (docs/package.md)."
    ),
    beyond=True,
)
UNUSED_SYSDESC = rule(
    "MLP006",
    "unused-system-description",
    W,
    "systems/<system>.json has no results/<system> folder.",
    stage="package",
    good=_CLEAN,
    bad=_clean("copy fixtures/package/clean/Acme/systems/acme-8x.json -> systems/acme-32x.json"),
    why=(
        "A description without results describes nothing published; often a system folder "
        "renamed on one side only (docs/package.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
LINK_ESCAPE = rule(
    "MLP007",
    "link-leaves-tree",
    E,
    "A symbolic link points outside the checked folder: not followed.",
    stage="package",
    good=_CLEAN,
    bad=f"link-escape: {_CLEAN}",
    why=(
        "Following a link out of the tree would check files that are not part of the "
        "submission (docs/package.md)."
    ),
)
# Errors kept beyond the official tools: a link leaving the tree is never followed
# (docs/security.md), where the official package checker and repo_checker read a valid
# one and pass it; not in the official verdict (docs/differences.md, "Package").
KEPT_BEYOND_OFFICIAL = frozenset({LINK_ESCAPE.code})
UNREADABLE = rule(
    "MLP008",
    "unreadable-file",
    E,
    "A system description or a folder of the submission cannot be read (permissions, "
    "broken link, a folder named like a file); unreadable logs are the parser's MLS010.",
    stage="package",
    good=_CLEAN,
    bad=f"unreadable: {_CLEAN}",
    why=(
        "What cannot be read cannot be checked; reported so that a missing check is not a "
        "pass (docs/package.md)."
    ),
)
INVALID_JSON = rule(
    "MLP010",
    "invalid-json",
    E,
    "A system description is not valid JSON; the position is the decoder's.",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace systems/acme-8x.json: "sw_notes": "" => "sw_notes": "",'),
    why=(
        "The official system-description check loads the file as JSON and fails it when "
        f"it cannot ({LOGGING}, package_checker)."
    ),
)
SCHEMA = rule(
    "MLP011",
    "system-description-schema",
    E,
    "A system description fails what the round's official system-description check "
    "rejects: a missing required field (from v1.0), a file that is not a JSON object, and "
    "from v4.1 a status other than the four official values.",
    stage="package",
    good=_CLEAN,
    bad=_clean('delete-line systems/acme-8x.json: "cooling"'),
    why=(
        "The official checker tests key presence (and from v4.1 the status value) only; "
        "stricter value checks are MLP100."
    ),
)
PLACEHOLDER = rule(
    "MLP012",
    "placeholder-value",
    W,
    "A system description field still holds a placeholder such as TODO or TBD.",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace systems/acme-8x.json: "hw_notes": "" => "hw_notes": "TODO"'),
    why=(
        "Placeholders are published as the system's description, and readers compare "
        "these fields (docs/package.md)."
    ),
    beyond=True,
)
REPEATED_KEY = rule(
    "MLP013",
    "repeated-description-key",
    W,
    "A system description states a key twice with different values (in any object): "
    "JSON readers, the official tools' included, keep the last and never read the first.",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        'replace systems/acme-8x.json: "hw_notes": "" => "hw_notes": "", "cooling": "liquid"'
    ),
    why=(
        "Python's json keeps the last of repeated keys without a word, so a description "
        'saying "cooling": "Air" and then "Liquid" is published with both while every '
        "tool reads one (RFC 8259 section 4: names SHOULD be unique; docs/package.md)."
    ),
    beyond=True,
)
DIVISION_MISMATCH = rule(
    "MLP020",
    "division-mismatch",
    W,
    "The submission_division a log declares differs from its system description's division "
    "(beyond the official checker).",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace results/acme-8x/resnet/result_0.txt: "value": "open" => "value": "closed"'),
    why="Real case: logs say closed where the JSON says open; the official tools never compare.",
    beyond=True,
)
STATUS_MISMATCH = rule(
    "MLP021",
    "status-mismatch",
    W,
    "The submission_status a log declares differs from its system description's status "
    "category (available, preview, research: onprem, cloud and available are one category; "
    "beyond the official checker).",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        'replace results/acme-8x/resnet/result_1.txt: "value": "onprem" => "value": "preview"'
    ),
    why=(
        "The status (available, preview, research) decides the category a result is "
        f"published in ({SUBMISSION_RULES}); the log and the description should agree."
    ),
    beyond=True,
)
ORG_MISMATCH = rule(
    "MLP022",
    "submitter-mismatch",
    W,
    "The submission_org of a log, the system description's submitter and the org folder "
    "name disagree (compared ignoring case and punctuation; a prefix such as "
    "Habana/HabanaLabs is accepted; beyond the official checker: resellers' logs built on "
    "another org's code often name that org).",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace results/acme-8x/resnet/result_2.txt: "value": "Acme" => "value": "Globex"'),
    why=(
        "The org folder is the submitter of record; a log naming another org may be "
        "another org's run (docs/package.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
PLATFORM_MISMATCH = rule(
    "MLP023",
    "platform-mismatch",
    W,
    "Runs of one result set declare different submission_platform values.",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        'replace results/acme-8x/resnet/result_3.txt: "value": "acme-8x" => "value": "acme-16x"'
    ),
    why=(
        f"A result set is the runs of one system ({TRAINING_RULES}); different platforms "
        "mean runs of different systems."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
BENCHMARK_MISMATCH = rule(
    "MLP024",
    "benchmark-mismatch",
    W,
    "The submission_benchmark a log declares differs from its benchmark folder (beyond the "
    "official checker).",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace results/acme-8x/resnet/result_4.txt: "value": "resnet" => "value": "ssd"'),
    why=(
        "A log in another benchmark's folder is checked and scored as that benchmark "
        "(docs/package.md)."
    ),
    beyond=True,
)
RUN_FILED_TWICE = rule(
    "MLP025",
    "run-filed-twice",
    W,
    "A run whose log has the same run_start and run_stop times and the same eval_accuracy "
    "values as a log of another system folder of the org: one run filed under two systems "
    "(byte-identical or edited copies; beyond the official checker).",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        "copy fixtures/package/clean/Acme/results/acme-8x -> results/acme-8x-copy",
        "copy fixtures/package/clean/Acme/systems/acme-8x.json -> systems/acme-8x-copy.json",
    ),
    why=(
        "Each result must come from its own runs on its system "
        f"({SUBMISSION_RULES}); the audit finds such copies in published results (v5.1), "
        "the package checker a submitter runs before upload says so first "
        "(docs/package.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
SEED_NOT_LOGGED = rule(
    "MLP040",
    "seed-not-logged",
    E,
    "Closed division (the system description's): a run logs no seed where the round's "
    "official seed check requires one: from v5.0 every run; v1.0 to v4.1 a run after "
    "(in file-name order) one of the same result that logs a seed. A null seed is none; "
    "a seed it cannot read as an integer (int()) fails too.",
    stage="package",
    good=_CLEAN,
    bad="fixtures/package/seeds/Acme",
    why=(
        "mlcommons/logging#87 (v1.0: all runs or none) and #384 with training_policies#546 "
        "(from v5.0: always)."
    ),
)
# The repository checks of the verify script's last step (repo_checker, mlcommons/logging#225):
# the upload is a git push. In force from v2.0 (the registry's `repo_checked` policy).
GIT_UNFRIENDLY_NAME = rule(
    "MLP041",
    "git-unfriendly-name",
    E,
    "A file or folder name holds a space or starts with '.' (editor swap files, .DS_Store, "
    "transfer leftovers): the official repo_checker rejects the upload.",
    stage="package@2.0.0",
    good=_CLEAN,
    bad=_clean("append benchmarks/resnet/run me.sh: python train.py"),
    why=(
        f"The verify script's repo_checker ({LOGGING}, repo_checker) fails any name with a "
        "space or a leading dot; it prints CHECKS FAILED and exits 0, so the line is its "
        'verdict (docs/package.md, "Repository checks").'
    ),
)
FILE_TOO_LARGE = rule(
    "MLP042",
    "file-too-large",
    E,
    "A file is larger than 50 MB (50 × 1024 × 1024 bytes), the official repo_checker's limit.",
    stage="package@2.0.0",
    good=_CLEAN,
    bad=f"large-file: {_CLEAN}",
    why=(
        f"The verify script's repo_checker ({LOGGING}) fails files over 50 MB, which the "
        'results repository does not take (docs/package.md, "Repository checks").'
    ),
)
BROKEN_LINK = rule(
    "MLP043",
    "broken-link",
    E,
    "A symbolic link, anywhere in the tree, names a target that does not exist.",
    stage="package@2.0.0",
    good=_CLEAN,
    bad=f"broken-link: {_CLEAN}",
    why=(
        f"The verify script's repo_checker ({LOGGING}) fails broken symbolic links; the "
        'published tree would point at nothing (docs/package.md, "Repository checks").'
    ),
)
OFFICIAL_CRASH = rule(
    "MLP044",
    "official-checker-stops",
    E,
    "The official package checker raises on this input instead of judging it (a rule file "
    "the round does not ship, a record its parser or RCP step cannot read, logs of one "
    "folder declaring different benchmarks or batch sizes): the package has no official "
    "verdict, which is a failure. The message names the exception and why.",
    stage="package",
    good=_CLEAN,
    bad=_clean(
        'replace results/acme-8x/resnet/result_0.txt: "value": "resnet" => "value": "resnt"'
    ),
    why=(
        f"A run the official tools ({LOGGING}, package_checker) cannot finish is never "
        "accepted; each crash path is listed in docs/differences.md."
    ),
)
SYSDESC_ADVICE = rule(
    "MLP100",
    "system-description-advice",
    W,
    "A system description value the round's official check accepts but the rules' format "
    "does not: a division other than closed/open, a status outside the round's categories "
    "(before v4.1), a list where text or an object is expected, a node count that is not a "
    "whole number; missing fields before v1.0 (the official checker did not read them).",
    stage="package",
    good=_CLEAN,
    bad=_clean('replace systems/acme-8x.json: "number_of_nodes": "1" => "number_of_nodes": "1.5"'),
    why="Advice beyond the official checker: an error only with --strict.",
    beyond=True,
    lifecycle=PREVIEW,
)
BYPASS_FILE = rule(
    "MLP101",
    "bypass-file-ignored",
    INFO,
    "A package_checker_params file asks the official checker to bypass the RCP or seed "
    "check; mllog-check judges convergence and seeds without bypass.",
    stage="package",
    good=_CLEAN,
    bad=_clean("append results/acme-8x/resnet/package_checker_params: rcp-bypass"),
    why="A bypass is a committee decision, not a property of the logs.",
)
STAGE_FAILED = rule(
    "MLP031",
    "stage-failed",
    E,
    "A checking stage raised an error on this input; the message names it. Reported so "
    "that one bad file never stops the check of the others.",
    stage="package",
    good=_CLEAN,
    why=(
        "One stage failing on one file must neither stop the others nor pass that file "
        "silently (docs/package.md)."
    ),
)

# Audit anomaly kinds (docs/audit.md). The rule name is the `kind` column of the report.
LINES_AFTER_STOP = rule(
    "MLA001",
    "lines-after-run-stop",
    W,
    "Records after run_stop: a sign of concatenated or hand-edited logs.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_0.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 1621000309026, "event_type": '
        '"POINT_IN_TIME", "key": "eval_accuracy", "value": 0.81, "metadata": '
        '{"file": "train.py", "lineno": 1, "epoch_num": 5}}'
    ),
    why=(
        "Records after run_stop are not part of the timed run; they suggest concatenated "
        "or edited logs (docs/audit.md)."
    ),
)
TIME_ZERO = rule(
    "MLA002",
    "time-zero",
    W,
    "A timed record (init/run/epoch/block/eval) has time_ms 0: written by hand.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_1.txt: "time_ms": '
        '1621003660001, "event_type": "INTERVAL_START", "key": "epoch_start" => '
        '"time_ms": 0, "event_type": "INTERVAL_START", "key": "epoch_start"'
    ),
    why="Timed records make time to train; a zero there was written by hand (docs/audit.md).",
)
TIME_CONSTANT = rule(
    "MLA003",
    "time-constant",
    W,
    "Every timed record of a run carries the same time_ms (or run_stop equals run_start).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_2.txt: "time_ms": '
        '1621007508026, "event_type": "INTERVAL_END", "key": "run_stop" => '
        '"time_ms": 1621007260001, "event_type": "INTERVAL_END", "key": '
        '"run_stop"'
    ),
    why=(
        "A real run's timestamps advance; identical ones mean a generated or rewritten "
        "log (docs/audit.md)."
    ),
)
TIME_BACKWARDS = rule(
    "MLA004",
    "time-backwards",
    W,
    "time_ms goes backwards by more than a second between consecutive timed records "
    "(init/run/epoch/block/eval; interleaved ranks jitter by milliseconds).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_3.txt: "time_ms": '
        '1621010923001 => "time_ms": 1621010855001'
    ),
    why=(
        "Time to train assumes a clock that runs forward; a step back of seconds means "
        "clock trouble or spliced logs (docs/audit.md)."
    ),
)
DUPLICATE_LOG = rule(
    "MLA005",
    "duplicate-log",
    W,
    "Two result files have identical record sequences (keys, values, times, metadata), "
    "paths ignored: one log published twice.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        "copy fixtures/audit/clean/Acme/results/acme-8x/resnet/result_0.txt -> "
        "Acme/results/acme-8x/resnet/result_1.txt"
    ),
    why="A log published twice counts one run twice (docs/audit.md).",
)
REPEATED_SEED = rule(
    "MLA006",
    "repeated-seed",
    W,
    "Two runs of one result set log the same seed (rules: seeds must differ per run).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_1.txt: "key": "seed", '
        '"value": 2 => "key": "seed", "value": 1'
    ),
    why=(
        f"Seeds must differ per run ({TRAINING_RULES}); a repeated one suggests a run "
        "copied or rerun unchanged (docs/audit.md)."
    ),
)
ABORTED_RUN = rule(
    "MLA007",
    "aborted-run",
    W,
    "A log with run_start and no run_stop: the run was cut off.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round('delete-line Acme/results/acme-8x/resnet/result_0.txt: "run_stop"'),
    why="A run without run_stop was cut off and has no time to train (docs/audit.md).",
)
NOT_CONVERGED = rule(
    "MLA008",
    "not-converged",
    W,
    "run_stop status is not success (abort, aborted): the run did not reach the target.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_4.txt: "status": "success" '
        '=> "status": "aborted"'
    ),
    why=(
        "A failed run may stand for the dropped slowest once; the audit lists such "
        "published runs (docs/audit.md)."
    ),
)
AUDIT_ORG_MISMATCH = rule(
    "MLA009",
    "org-mismatch",
    W,
    "A log's submission_org (or its system description's submitter) is not its org folder.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_0.txt: "value": "Acme" => "value": "Globex"'
    ),
    why=(
        "A log naming another org suggests runs or code borrowed from another submitter "
        "(docs/audit.md)."
    ),
    audits=(ORG_MISMATCH,),
)
PUBLISHED_FAILING = rule(
    "MLA010",
    "published-but-failing",
    W,
    "A published log or result set has error-level problems (syntax, compliance, layout, "
    "consistency, scores).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_4.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 1621014620000, "key": "eval_acc'
    ),
    why=(
        "Published results should pass the tools of their round; the audit lists those "
        "that do not (docs/audit.md)."
    ),
)
AUDIT_STRAY = rule(
    "MLA011",
    "stray-file",
    W,
    "A published file that is not part of a submission (see MLP004).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round("append Acme/results/acme-8x/resnet/run.sh: python train.py"),
    why=(
        "Leftover files are published with the results without being checked (MLP004; "
        "docs/audit.md)."
    ),
    audits=(STRAY,),
)

DECLARED_MISMATCH = rule(
    "MLA012",
    "declared-mismatch",
    W,
    "What logs declare (division, status, platform, benchmark) disagrees with the system "
    "description, the folder or the other runs (MLP020, MLP021, MLP023, MLP024: warnings "
    "beyond the official checker).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        'replace Acme/results/acme-8x/resnet/result_0.txt: "value": "open" => "value": "closed"'
    ),
    why=(
        "What a log declares should match what is published about its system and result "
        "(docs/audit.md)."
    ),
    audits=(DIVISION_MISMATCH, STATUS_MISMATCH, PLATFORM_MISMATCH, BENCHMARK_MISMATCH),
)
AUDIT_SYSDESC_ADVICE = rule(
    "MLA013",
    "system-description-format",
    W,
    "A system description value the official check accepts but the rules' format does not "
    "(MLP100).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round('replace Acme/systems/acme-8x.json: "division": "open" => "division": "close"'),
    why=(
        "System descriptions are what readers compare across submitters "
        f"({SUBMISSION_RULES}); values outside the rules' format mislead (docs/audit.md)."
    ),
    audits=(SYSDESC_ADVICE,),
)
UNCHECKED_RESULT = rule(
    "MLA014",
    "unchecked-result",
    W,
    "A published log the official tools never check or score: a result file not named "
    "result_*.txt (MLP002) or a folder naming no benchmark of the round (MLP005).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        "rename Acme/results/acme-8x/resnet/result_4.txt -> Acme/results/acme-8x/resnet/run_4.log"
    ),
    why="A log the official tools never read is published but unverified (docs/audit.md).",
    audits=(BAD_RESULT_NAME, UNKNOWN_BENCHMARK),
)
TARGET_NOT_REACHED = rule(
    "MLA015",
    "target-not-reached",
    W,
    "run_stop says success, so the run is timed and counted, but no evaluation before it "
    "reaches the round's quality target (not claimed where the target is not known).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round('replace Acme/results/acme-8x/resnet/result_0.txt: "value": 0.78 => "value": 0.7'),
    why=(
        "The official summarizer times and counts a run that says success; if it never "
        "reached the target, the result is better than earned (docs/audit.md)."
    ),
)
BATCH_DIFFERS = rule(
    "MLA016",
    "batch-size-differs",
    W,
    "Runs of one result log different global_batch_size values (the RCP check takes one "
    "batch size per result); the runs unlike the most common value are named.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round('replace Acme/results/acme-8x/resnet/result_1.txt: "value": 256 => "value": 512'),
    why=(
        "One result is one configuration; runs with different batch sizes do not measure "
        "the same thing and the RCP check takes one batch size (docs/audit.md)."
    ),
)
RUNS_APART = rule(
    "MLA017",
    "runs-far-apart",
    W,
    "A run's first timestamp is more than 14 days from the median of its result's runs "
    "(another campaign, or a clock in another unit).",
    stage="audit",
    good=_AUDIT_CLEAN,
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
SHARED_WINDOW = rule(
    "MLA018",
    "shared-run-window",
    W,
    "A run shares its run_start and run_stop time_ms with a run of another result (another "
    "system, org or round) although the files differ: one run published twice, edited. The "
    "message names both files and the lines that differ.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(*_COPY_16X),
    why=(
        "No two runs start and stop at the same milliseconds; a re-filed copy counts one "
        "run in two results (docs/audit.md)."
    ),
)
SHARED_CURVE = rule(
    "MLA019",
    "shared-eval-curve",
    W,
    "A run logs the same evaluation curve (eval_accuracy values with their epochs or "
    "samples, at least two) as a run of another result, with another timed window: one "
    "run's convergence re-used with its times rewritten.",
    stage="audit",
    good=_AUDIT_CLEAN,
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
DUPLICATE_COUNTED = rule(
    "MLA020",
    "duplicate-run-counted",
    W,
    "Two runs of one result set are one run (the same record sequence, or the same timed "
    "window outside weak scaling; a shared curve alone is MLA055): the score counts it "
    "twice. The message shows the published score and the score recomputed without the "
    "copy (a weak-scaling result's: its time to train all).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        f"copy fixtures/audit/clean/{_R0} -> Acme/results/acme-8x/resnet/result_1.txt",
        'replace Acme/results/acme-8x/resnet/result_1.txt: "key": "seed", "value": 1 => '
        '"key": "seed", "value": 7',
    ),
    why="The olympic mean assumes independent runs; a copy weighs one run twice (docs/audit.md).",
)
SAME_EVAL_CURVE = rule(
    "MLA055",
    "same-eval-curve",
    W,
    "Runs of one result set log the same evaluation curve (values with their epochs or "
    "samples, at least two, one of five digits) but are no copy (each its own timed "
    "window, or weak-scaling models launched together): trained deterministically, or "
    "a seed not applied. Severity info; never counted as a copy.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        f'replace {_R0}: "value": 0.78 => "value": 0.781234',
        'replace Acme/results/acme-8x/resnet/result_1.txt: "value": 0.78 => "value": 0.781234',
    ),
    why=(
        "A score counts each run once; a curve alone does not make two runs one: "
        "deterministic training repeats it (published v1.0 RNN-T results, each run with "
        "its own window and seed). Runs that should differ by their seed and do not are "
        "worth knowing, as the round's seed check is (docs/scores.md, Seeds; docs/audit.md, "
        "Near-duplicate runs)."
    ),
)
TIME_MS_ZERO = rule(
    "MLA030",
    "time-ms-zero",
    W,
    "A record other than a timed one has time_ms 0 (what MLC107 warns about): a line added "
    "by hand, such as the one all 30 Intel v1.0 DLRM logs end with. One row per file.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round(
        "append Acme/results/acme-8x/resnet/result_1.txt: :::MLLOG "
        '{"namespace": "", "time_ms": 0, "event_type": "POINT_IN_TIME", "key": '
        '"submission_poc_name", "value": "A. Person", "metadata": {"file": '
        '"train.py", "lineno": 1}}'
    ),
    why=(
        "A record at time_ms 0 outside the timed ones is a line added by hand after the "
        "run, as in published Intel v1.0 DLRM logs (docs/audit.md)."
    ),
)
NOT_AUDITED = rule(
    "MLA021",
    "not-audited",
    W,
    "A folder of the round that is not audited: it holds no results/ folder, or it is a "
    "symbolic link (never followed). Nothing in it was checked.",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round("append Zeta/results.txt: not a results folder"),
    why=(
        "An audit that skips a folder in silence would report a round as clean without "
        "reading it: nothing checked is never success (docs/security.md)."
    ),
)
LOOKALIKE_ORG = rule(
    "MLA045",
    "org-lookalike",
    W,
    "An org folder whose name looks like another org's of the round: it differs only in "
    "invisible characters (zero-width, bidirectional), compatibility forms (fullwidth) "
    "or letters of another script drawn like Latin ones (a Cyrillic A for the Latin one).",
    stage="audit",
    good=_AUDIT_CLEAN,
    bad=_round("copy fixtures/audit/clean/Acme -> \u0410cme"),
    why=(
        "Such a folder ranks as an org of its own while every output shows the same "
        "name: one submitter's results under two names, or another's passed off as a "
        "known one (docs/security.md; Unicode TR39, https://www.unicode.org/reports/tr39/, "
        "Confusable Detection). Beyond the official tools."
    ),
    beyond=True,
)
_PREVIEW_ROUNDS = (
    "fixtures/audit/preview",
    "copy fixtures/audit/clean/Acme -> v1.0/Acme",
    "copy fixtures/audit/clean/Acme -> v1.1/Acme",
    'replace v1.0/Acme/systems/acme-8x.json: "status": "available" => "status": "preview"',
)
PREVIEW_NOT_AVAILABLE = rule(
    "MLA050",
    "preview-not-available",
    W,
    "A preview system of one round has no available system of the same submitter with its "
    "name, or its accelerator model and count, in the round it had to be available by "
    "(both rounds audited): its results and what that round holds are listed.",
    stage="audit-rounds",
    good="\n".join(_PREVIEW_ROUNDS),
    bad="\n".join(
        (
            *_PREVIEW_ROUNDS,
            'replace v1.1/Acme/systems/acme-8x.json: "status": "available" => "status": "research"',
        )
    ),
    why=(
        "A Preview system must be submitted as Available in the next submission after 140 "
        "days, or the next submission date, whichever is later, else its Preview results "
        f'are marked invalid ({SUBMISSION_RULES}, "Preview Systems"); reviewers follow '
        "this up by hand a round later (docs/audit.md)."
    ),
)

# Checks of the results stage beyond the official tools, shown by the audit as kinds of
# their own (a reviewer files them; docs/audit.md): a code of the table gathered. The
# examples: a closed fixture of the results stage, another run edited than its code's.
_SCORED = "fixtures/score/olympic"
AUDIT_EVAL_CADENCE = rule(
    "MLA022",
    "eval-cadence-break",
    W,
    "A closed run evaluates less often than its round's training rules require (MLR060).",
    stage="audit",
    good=_SCORED,
    bad=_SCORED + "\ndelete-line Example/results/sys8/resnet/result_3.txt: "
    '"key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 20}',
    why=(
        "The evaluation schedule is a rule of the round no official tool checks; an audit "
        "shows it beside the other rule breaks, not only in problems.csv (MLR060; "
        'docs/scores.md, "Evaluation cadence").'
    ),
    audits=(_results_codes.EVAL_CADENCE,),
)
AUDIT_HPARAMS_DIFFER = rule(
    "MLA023",
    "hparams-differ",
    W,
    "The closed runs of one result log different values for a constrained hyperparameter (MLR068).",
    stage="audit",
    good=_SCORED,
    bad=_SCORED + "\nreplace Example/results/sys8/resnet/result_1.txt: "
    '"lars_opt_base_learning_rate", "value": 10.5 => "lars_opt_base_learning_rate", '
    '"value": 11.0',
    why=(
        "A result whose runs trained two configurations stands for neither; no official "
        'tool compares runs (MLR068; docs/hparams.md, "Runs that disagree").'
    ),
    audits=(_results_codes.HPARAMS_DIFFER,),
)


# The audit's anomaly kinds by name (the report's `kind` column): every MLA code of the
# table, the power kinds (registered by power/codes.py) too.
ANOMALY_KINDS: dict[str, RuleInfo] = {info.name: info for info in family("MLA").values()}
