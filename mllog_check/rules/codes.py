"""Compliance rules (MLC): the table of their codes (``catalog.rule`` entries).

MLC0xx are what the official checker also fails a log for (errors). MLC1xx go
beyond it (``beyond=True``): warnings by default (the verdict stays the official one),
errors under ``--strict``; MLC101 is also the official checker's own warning. Each
constant is the rule (``rule.problem(...)`` makes its Problem); rule data names a code
(a key's ``warn_as``) and the engine reports it through ``TABLE``. The example logs
live in ``examples.py:EXAMPLES``, loaded by ``catalog.all_rules()`` only, so that a
single-file check does not build them. Adding a code: docs/design.md, "Rule codes".
"""

from __future__ import annotations

from ..catalog import LOGGING, PREVIEW, TRAINING_RULES, RuleInfo, family, rule
from ..problems import Severity

E, W = Severity.ERROR, Severity.WARNING

NO_RECORDS = rule(
    "MLC001",
    "no-mllog-records",
    E,
    "The file has no `:::MLLOG` record at all (official: 'No log lines detected').",
    stage="check",
    why=(
        "There is nothing to time or check; the official compliance checker "
        f"({LOGGING}, mlperf_logging/compliance_checker) fails such a file ('No log "
        "lines detected')."
    ),
)
UNREADABLE_RECORD = rule(
    "MLC002",
    "record-without-value-or-metadata",
    E,
    "A :::MLLOG record has no `value` or no `metadata` field. The parser reads it on "
    "(warning MLS006), but the official checker crashes on it, so the log fails.",
    stage="check",
    why=(
        "The official compliance checker crashes on such a record, so the round's "
        "tools reject the log; the verdict follows them (docs/rules.md)."
    ),
)
MISSING_KEY = rule(
    "MLC010",
    "missing-key",
    E,
    "A key the rules require (exactly once or at least once) "
    "is not logged. Reported at line 0 with the reason the key is required.",
    stage="check",
    why=(
        "The training rules require the logging of timing keys and hyperparameters so "
        f"that a result can be reviewed and reproduced ({TRAINING_RULES}); the "
        "official checker's REQ rules fail a log without them."
    ),
)
REPEATED_DIFFERENT = rule(
    "MLC011",
    "key-repeated-different-values",
    E,
    "A key required exactly once appears several times with different values.",
    stage="check",
    why=(
        "A key logged twice with different values leaves its real value unknown; the "
        "official checker's EXACTLY_ONE rule fails the log (docs/rules.md)."
    ),
)
MISSING_ALTERNATIVE = rule(
    "MLC012",
    "missing-alternative",
    E,
    "None of a group of alternative keys (epoch_* or block_*, eval_* or block_*) is logged.",
    stage="check",
    why=(
        "Epochs or blocks, and evaluations, must be logged for a run's progress and "
        "convergence to be read; the official AT_LEAST_ONE_OR rule fails a log with "
        "neither (docs/rules.md)."
    ),
)
BAD_VALUE = rule(
    "MLC020",
    "bad-value",
    E,
    "A key's value breaks the rule (fixed hyperparameter, "
    "allowed set, bound or arithmetic form such as 0.0001·2^N).",
    stage="check",
    why=(
        "The closed division fixes hyperparameters and their allowed forms so that "
        f"results compare like for like ({TRAINING_RULES}, hyperparameters); the "
        "official checker's CHECK rules reject other values."
    ),
)
BAD_METADATA = rule(
    "MLC021",
    "bad-metadata",
    E,
    "A record lacks metadata the rules require "
    "(epoch_num on eval records, status on run_stop, epoch_count on block_start).",
    stage="check",
    why=(
        "Convergence (the epoch_num of evaluations) and the run's outcome (run_stop "
        "status) are read from metadata; the official rule files require it."
    ),
)
OUT_OF_ORDER = rule(
    "MLC030",
    "out-of-order",
    E,
    "init_start, init_stop, run_start, run_stop and block_start must come in that order.",
    stage="check",
    why=(
        "Time to train runs from run_start to run_stop, after initialization "
        f"({TRAINING_RULES}, timing); the official checker enforces the order of these "
        "events."
    ),
)
INIT_TOO_LONG = rule(
    "MLC031",
    "init-too-long",
    E,
    "v1.0: init_stop must come less than 30 minutes after the first init_start.",
    stage="check",
    why=(
        "The v1.0 rules bound initialization time so that it cannot hide training "
        f"work ({TRAINING_RULES}); the official 1.0.0 checker fails a longer one."
    ),
)
TARGET_NOT_REACHED = rule(
    "MLC040",
    "quality-target-not-reached",
    E,
    "No eval_accuracy reaches the benchmark's quality target (closed) or the open bound (< 1.0).",
    stage="check",
    why=(
        "A run counts only when it reaches the benchmark's quality target "
        f"({TRAINING_RULES}, benchmarks); the official checker's ATLEAST_ONE_CHECK "
        "fails the log otherwise."
    ),
)
INCOMPLETE_SET = rule(
    "MLC041",
    "incomplete-tensor-set",
    E,
    "Closed RNN-T: weights_initialization must name each of the seven tensors exactly once.",
    stage="check",
    why=(
        "Closed RNN-T fixes the weight initialization; logging each of the seven "
        f"tensors once is how the official rules (closed_rnnt of {LOGGING}) check it."
    ),
)
UNKNOWN_BENCHMARK = rule(
    "MLC050",
    "benchmark-not-in-round",
    E,
    "submission_benchmark names a benchmark the round's rules do not have (retired, "
    "not yet introduced, or misspelt). One error naming the rounds whose rules have it; "
    "no benchmark rules are applied, so no cascade of unrelated errors follows.",
    stage="check",
    why=(
        "Each round's rules list its benchmarks; the official checker has no rules "
        "for another name and fails the log. One error instead of a cascade of "
        "unrelated ones (docs/rules.md)."
    ),
)
BAD_RELATION = rule(
    "MLC051",
    "bad-relation",
    E,
    "A value breaks a relation with other keys' values logged before it (closed "
    "Llama 3.1 8B: opt_learning_rate_decay_steps = 1,200,000 − "
    "opt_learning_rate_warmup_steps), or the relation cannot be evaluated because a "
    "key it reads is not logged before it.",
    stage="check@5.1.0",
    why=(
        "Later rounds tie hyperparameters together (closed Llama 3.1 8B: decay steps "
        "and warmup steps) so that closed runs follow the reference schedule; the "
        "official checker evaluates the relation and fails the log."
    ),
)
TOO_FEW_RECORDS = rule(
    "MLC052",
    "too-few-records",
    E,
    "A key required N times or more appears fewer times (Stable Diffusion: at least "
    "two aggregated FID/CLIP evaluation points).",
    stage="check@4.1.0",
    why=(
        "Stable Diffusion is judged over several evaluation points; the official "
        "rules require at least two aggregated FID/CLIP points (docs/rules.md)."
    ),
)
UNAGGREGATABLE = rule(
    "MLC053",
    "eval-not-aggregatable",
    E,
    "Stable Diffusion: an eval_accuracy record naming a `metric` lacks the metadata "
    "that groups it into an evaluation point (samples_count; step_num in v3.1). The "
    "official checker raises on it before any check, so the log fails.",
    stage="check@4.1.0",
    why=(
        "The official checker groups evaluation records by samples_count (v3.1: "
        "step_num) before any check and raises on one it cannot group, so the round's "
        "tools reject the log."
    ),
)
REPEATED_SAME = rule(
    "MLC101",
    "key-repeated-same-value",
    W,
    "A key required exactly once is repeated "
    "with the same value (typically one copy per rank); the official checker warns too.",
    stage="check",
    why=(
        "Logs written by every rank repeat their header keys; the value is not in "
        "doubt, and the official checker warns too."
    ),
    beyond=True,
)
SSD_FIRST_BOUNDARY = rule(
    "MLC102",
    "ssd-first-boundary",
    W,
    "Closed SSD: the first LR decay boundary "
    "must be 40·(1 + k/10) epochs. The official file states this CHECK but its YAML loader "
    "drops it (two CHECK entries under one mapping keep only the last).",
    stage="check",
    why=(
        "The closed SSD rules fix the first decay boundary, but the official YAML "
        "loses one of its two CHECK entries (docs/differences.md): the rule stands, "
        "as a warning beyond the official checker."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
SGD_MOMENTUM = rule(
    "MLC103",
    "sgd-momentum",
    W,
    "Closed ResNet with SGD: momentum must be 0.9 (rules "
    "table); the official file does not check it.",
    stage="check",
    why=(
        "The rules' hyperparameter table fixes SGD momentum for closed ResNet "
        f"({TRAINING_RULES}); the official rule files do not check it, so it is a "
        "warning (docs/differences.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
SGD_POLY_POWER = rule(
    "MLC104",
    "sgd-poly-power",
    W,
    "Closed ResNet with SGD: polynomial decay power "
    "must be 2 (rules table); the official file does not check it.",
    stage="check",
    why=(
        "The rules' hyperparameter table fixes the polynomial decay power for closed "
        f"ResNet with SGD ({TRAINING_RULES}); the official rule files do not check it, "
        "so it is a warning (docs/differences.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
RUN_NOT_SUCCESS = rule(
    "MLC105",
    "run-not-successful",
    W,
    "run_stop's status is not `success`: the run "
    "did not converge (the official checker ignores it; the scorer counts it as failed).",
    stage="check",
    why=(
        "The scorer counts a run whose status is not success as not converged; the "
        "official compliance checker never reads the status, so here it is a warning "
        "(docs/differences.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
TIME_BACKWARDS = rule(
    "MLC106",
    "timestamp-backwards",
    W,
    "A record's time_ms is more than 1 s before an "
    "earlier record's (interleaved ranks step back a few ms; more suggests a clock or "
    "concatenation problem). Reported once per file with the count. Not counted: "
    "evaluation records (evaluated offline in stable_diffusion), a run_stop back-dated "
    "below an evaluation of its run, and records after run_stop.",
    stage="check",
    why=(
        "Time to train is a difference of timestamps; a clock that steps back by more "
        "than a second makes it unreliable (ranks interleave by milliseconds only). "
        "Beyond the official checker."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
TIME_ZERO = rule(
    "MLC107",
    "zero-timestamp",
    W,
    "A record has time_ms 0 (post-processed or hand-written "
    "logs); timing built on it is meaningless.",
    stage="check",
    why=(
        "A zero timestamp marks a record written or edited by hand; any timing built "
        "on it is meaningless. Beyond the official checker (docs/differences.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
HEADER_CONFLICT = rule(
    "MLC108",
    "header-key-conflict",
    W,
    "A key logged before run_start that no "
    "exactly-once rule covers is repeated with a different value (not seed, logged "
    "per rank, nor tracked_stats, a statistics event).",
    stage="check",
    why=(
        "A configuration key logged with two values before the run leaves the "
        "configuration in doubt; no official rule covers it, so it is a warning."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
ROUND_MISMATCH = rule(
    "MLC109",
    "syntax-of-another-round",
    W,
    "The log is written in the syntax of other rounds than the ruleset's (:::MLL is "
    "v0.6, :::MLPv0.5.0 is v0.5): its errors then say little; --ruleset auto picks "
    "the round from the log.",
    stage="check",
    why=(
        "Each round's rules expect that round's log syntax; the errors another "
        "round's rules give are misleading, and --ruleset auto picks the right round "
        "(docs/rounds.md)."
    ),
    beyond=True,
    lifecycle=PREVIEW,
)
RENAMED_LATER = rule(
    "MLC110",
    "key-renamed-after-the-round",
    W,
    "v2.1 closed BERT: the rules were changed after the round (November 2022) to "
    "require opt_lamb_epsilon instead of opt_epsilon; the round's own tool required "
    "opt_epsilon. A log without opt_lamb_epsilon keeps its v2.1 verdict and gets this "
    "warning (today's official verdict with --strict).",
    stage="check@2.1.0",
    why=(
        "The rules changed after the v2.1 round; the round's own tool gives the "
        "verdict of record and today's verdict is shown as a warning "
        "(docs/differences.md)."
    ),
    beyond=True,
)
TARGET_AFTER_STOP = rule(
    "MLC111",
    "target-after-run-stop",
    W,
    "The quality target is reached only by an evaluation logged after run_stop: the "
    "official checker judges the target over the whole log and its scorer counts the run "
    "as converged, but the run's timed part, which ends at run_stop, never reached it.",
    stage="check",
    why=(
        f"Time to train ends when the quality target is reached ({TRAINING_RULES}); an "
        "evaluation after run_stop is outside the timed run, yet the official tools count "
        "it (docs/differences.md)."
    ),
    beyond=True,
)

# code -> rule: rule data names codes (a key's warn_as), the engine reports the rule.
TABLE: dict[str, RuleInfo] = family("MLC")
