"""Catalog entries of the compliance codes: summary, passing and failing example logs.

Registered through ``catalog._RULE_MODULES`` (docs, tests); the engine itself only
needs the light table in ``codes.py``, so a single-file check does not build these
example logs.
"""

from __future__ import annotations

from ..catalog import LOGGING, TRAINING_RULES, RuleInfo, register
from ..problems import Severity
from .codes import (
    BAD_METADATA,
    BAD_RELATION,
    BAD_VALUE,
    HEADER_CONFLICT,
    INCOMPLETE_SET,
    INIT_TOO_LONG,
    MISSING_ALTERNATIVE,
    MISSING_KEY,
    NO_RECORDS,
    OUT_OF_ORDER,
    RENAMED_LATER,
    REPEATED_DIFFERENT,
    REPEATED_SAME,
    ROUND_MISMATCH,
    RUN_NOT_SUCCESS,
    SGD_MOMENTUM,
    SGD_POLY_POWER,
    SSD_FIRST_BOUNDARY,
    TARGET_NOT_REACHED,
    TIME_BACKWARDS,
    TIME_ZERO,
    TOO_FEW_RECORDS,
    UNAGGREGATABLE,
    UNKNOWN_BENCHMARK,
    UNREADABLE_RECORD,
)
from .examples import GOOD, RNNT_TENSORS, build, good, line, llama31_8b, rnnt, stable_diffusion

E, W = Severity.ERROR, Severity.WARNING


def _swap(old: str, new: str, text: str = GOOD) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


_SGD_PARAMS = [
    ("sgd_opt_base_learning_rate", 5.0),
    ("sgd_opt_end_learning_rate", 0.0001),
    ("sgd_opt_learning_rate_decay_poly_power", 2),
    ("sgd_opt_learning_rate_decay_steps", 14000),
    ("sgd_opt_weight_decay", 5e-05),
    ("sgd_opt_momentum", 0.9),
    ("model_bn_span", 32),
    ("opt_learning_rate_warmup_epochs", 2),
]


def _sgd(momentum: float = 0.9, power: int = 2) -> str:
    change = {"sgd_opt_momentum": momentum, "sgd_opt_learning_rate_decay_poly_power": power}
    params = [("global_batch_size", 3264), ("opt_name", "sgd")]
    params += [(k, change.get(k, v)) for k, v in _SGD_PARAMS]
    params += [("gradient_accumulation_steps", 1), ("train_samples", 1281167)]
    return build("resnet", [*params, ("eval_samples", 50000)], (0.5, 0.7601))


def _ssd(first_boundary: int) -> str:
    params = [
        ("global_batch_size", 2048),
        ("gradient_accumulation_steps", 1),
        ("model_bn_span", 32),
        ("opt_learning_rate_warmup_factor", 0),
        ("opt_learning_rate_warmup_steps", 1200),
        ("opt_weight_decay", 0.0005),
        ("opt_base_learning_rate", 0.003),
        ("max_samples", 1),
        ("opt_learning_rate_decay_boundary_epochs", [first_boundary, 55]),
        ("train_samples", 117266),
        ("eval_samples", 5000),
    ]
    return build("ssd", params, (0.2, 0.2301))


_RULES = [
    (
        NO_RECORDS,
        "no-mllog-records",
        E,
        "The file has no `:::MLLOG` record at all (official: 'No log lines detected').",
        GOOD,
        "training started\nloss 3.2\n",
    ),
    (
        UNREADABLE_RECORD,
        "record-without-value-or-metadata",
        E,
        "A :::MLLOG record has no `value` or no `metadata` field. The parser reads it on "
        "(warning MLS006), but the official checker crashes on it, so the log fails.",
        GOOD,
        _swap('"value": true, "metadata": {}', '"value": true'),
    ),
    (
        MISSING_KEY,
        "missing-key",
        E,
        "A key the rules require (exactly once or at least once) "
        "is not logged. Reported at line 0 with the reason the key is required.",
        GOOD,
        good({"lars_epsilon": None}),
    ),
    (
        REPEATED_DIFFERENT,
        "key-repeated-different-values",
        E,
        "A key required exactly once appears several times with different values.",
        GOOD,
        _swap(
            line("opt_name", "lars", t=1500),
            line("opt_name", "lars", t=1500) + line("global_batch_size", 1632, t=1500),
        ),
    ),
    (
        MISSING_ALTERNATIVE,
        "missing-alternative",
        E,
        "None of a group of alternative keys (epoch_* or block_*, eval_* or block_*) is logged.",
        GOOD,
        "".join(x for x in GOOD.splitlines(True) if '"block_' not in x),
    ),
    (
        BAD_VALUE,
        "bad-value",
        E,
        "A key's value breaks the rule (fixed hyperparameter, "
        "allowed set, bound or arithmetic form such as 0.0001·2^N).",
        GOOD,
        good({"lars_opt_end_learning_rate": 0.001}),
    ),
    (
        BAD_METADATA,
        "bad-metadata",
        E,
        "A record lacks metadata the rules require "
        "(epoch_num on eval records, status on run_stop, epoch_count on block_start).",
        GOOD,
        _swap('"value": 0.7601, "metadata": {"epoch_num": 2}', '"value": 0.7601, "metadata": {}'),
    ),
    (
        OUT_OF_ORDER,
        "out-of-order",
        E,
        "init_start, init_stop, run_start, run_stop and block_start must come in that order.",
        GOOD,
        _swap('"key": "init_stop"', '"key": "init_stop_late"').replace(
            ':::MLLOG {"namespace": "", "time_ms": 1621118666001, "event_type": "POINT_IN_TIME", '
            '"key": "run_start", "value": null, "metadata": {}}\n',
            ':::MLLOG {"namespace": "", "time_ms": 1621118666001, "event_type": "POINT_IN_TIME", '
            '"key": "run_start", "value": null, "metadata": {}}\n' + line("init_stop", t=60002),
        ),
    ),
    (
        INIT_TOO_LONG,
        "init-too-long",
        E,
        "v1.0: init_stop must come less than 30 minutes after the first init_start.",
        GOOD,
        _swap(
            '"time_ms": 1621118666000, "event_type": "POINT_IN_TIME", "key": "init_stop"',
            '"time_ms": 1621120607000, "event_type": "POINT_IN_TIME", "key": "init_stop"',
        ),
    ),
    (
        TARGET_NOT_REACHED,
        "quality-target-not-reached",
        E,
        "No eval_accuracy reaches the "
        "benchmark's quality target (closed) or the open bound (< 1.0).",
        GOOD,
        good(accuracy=0.7579),
    ),
    (
        INCOMPLETE_SET,
        "incomplete-tensor-set",
        E,
        "Closed RNN-T: weights_initialization must name each of the seven tensors exactly once.",
        rnnt(),
        rnnt(RNNT_TENSORS[:-1]),
    ),
    (
        REPEATED_SAME,
        "key-repeated-same-value",
        W,
        "A key required exactly once is repeated "
        "with the same value (typically one copy per rank); the official checker warns too.",
        GOOD,
        _swap(line("lars_epsilon", 0.0, t=1500), line("lars_epsilon", 0.0, t=1500) * 2),
    ),
    (
        SSD_FIRST_BOUNDARY,
        "ssd-first-boundary",
        W,
        "Closed SSD: the first LR decay boundary "
        "must be 40·(1 + k/10) epochs. The official file states this CHECK but its YAML loader "
        "drops it (two CHECK entries under one mapping keep only the last).",
        _ssd(44),
        _ssd(43),
    ),
    (
        SGD_MOMENTUM,
        "sgd-momentum",
        W,
        "Closed ResNet with SGD: momentum must be 0.9 (rules "
        "table); the official file does not check it.",
        _sgd(),
        _sgd(momentum=0.95),
    ),
    (
        SGD_POLY_POWER,
        "sgd-poly-power",
        W,
        "Closed ResNet with SGD: polynomial decay power "
        "must be 2 (rules table); the official file does not check it.",
        _sgd(),
        _sgd(power=1),
    ),
    (
        RUN_NOT_SUCCESS,
        "run-not-successful",
        W,
        "run_stop's status is not `success`: the run "
        "did not converge (the official checker ignores it; the scorer counts it as failed).",
        GOOD,
        _swap('{"status": "success"}', '{"status": "aborted"}'),
    ),
    (
        TIME_BACKWARDS,
        "timestamp-backwards",
        W,
        "A record's time_ms is more than 1 s before an "
        "earlier record's (interleaved ranks step back a few ms; more suggests a clock or "
        "concatenation problem). Reported once per file with the count. Not counted: "
        "evaluation records (evaluated offline in stable_diffusion), a run_stop back-dated "
        "below an evaluation of its run, and records after run_stop.",
        GOOD,
        _swap('"time_ms": 1621118866001', '"time_ms": 1621118756001'),
    ),
    (
        TIME_ZERO,
        "zero-timestamp",
        W,
        "A record has time_ms 0 (post-processed or hand-written "
        "logs); timing built on it is meaningless.",
        GOOD,
        _swap(
            '"time_ms": 1621118606000, "event_type": "POINT_IN_TIME", "key": "submission_org"',
            '"time_ms": 0, "event_type": "POINT_IN_TIME", "key": "submission_org"',
        ),
    ),
    (
        HEADER_CONFLICT,
        "header-key-conflict",
        W,
        "A key logged before run_start that no "
        "exactly-once rule covers is repeated with a different value (not seed, logged "
        "per rank, nor tracked_stats, a statistics event).",
        GOOD,
        _swap(
            line("cache_clear", True),
            line("cache_clear", True)
            + line("opt_gradient_clip_norm", 1.0)
            + line("opt_gradient_clip_norm", 2.0),
        ),
    ),
    (
        ROUND_MISMATCH,
        "syntax-of-another-round",
        W,
        "The log is written in the syntax of other rounds than the ruleset's (:::MLL is "
        "v0.6, :::MLPv0.5.0 is v0.5): its errors then say little; --ruleset auto picks "
        "the round from the log.",
        GOOD,
        ':::MLL 1560881700.860 submission_org: {"metadata": {}, "value": "Example"}\n',
    ),
]

_BERT_V21 = [
    ("global_batch_size", 448),
    ("opt_base_learning_rate", 0.00035),
    ("opt_epsilon", 1e-06),
    ("opt_learning_rate_training_steps", 7000),
    ("opt_learning_rate_warmup_steps", 0),
    ("num_warmup_steps", 0),
    ("start_warmup_step", 0),
    ("opt_lamb_beta_1", 0.9),
    ("opt_lamb_beta_2", 0.999),
    ("opt_lamb_weight_decay_rate", 0.01),
    ("gradient_accumulation_steps", 1),
    ("train_samples", 3000000),
    ("eval_samples", 10000),
]


def _bert_v21(lamb_epsilon: bool) -> str:
    params = _BERT_V21 + ([("opt_lamb_epsilon", 1e-06)] if lamb_epsilon else [])
    return build("bert", params, (0.7, 0.721))


# Rules of later rounds: the stage names the ruleset their examples are checked with.
_ROUND_RULES = [
    (
        UNKNOWN_BENCHMARK,
        "benchmark-not-in-round",
        E,
        "submission_benchmark names a benchmark the round's rules do not have (retired, "
        "not yet introduced, or misspelt). One error naming the rounds whose rules have it; "
        "no benchmark rules are applied, so no cascade of unrelated errors follows.",
        GOOD,
        _swap('"value": "resnet"', '"value": "gpt3"'),
        "check",
    ),
    (
        BAD_RELATION,
        "bad-relation",
        E,
        "A value breaks a relation with other keys' values logged before it (closed "
        "Llama 3.1 8B: opt_learning_rate_decay_steps = 1,200,000 − "
        "opt_learning_rate_warmup_steps), or the relation cannot be evaluated because a "
        "key it reads is not logged before it.",
        llama31_8b(),
        llama31_8b({"opt_learning_rate_decay_steps": 1200000}),
        "check@5.1.0",
    ),
    (
        TOO_FEW_RECORDS,
        "too-few-records",
        E,
        "A key required N times or more appears fewer times (Stable Diffusion: at least "
        "two aggregated FID/CLIP evaluation points).",
        stable_diffusion(),
        stable_diffusion([{"samples_count": 1024000, "FID": 80.0, "CLIP": 0.16}]),
        "check@4.1.0",
    ),
    (
        UNAGGREGATABLE,
        "eval-not-aggregatable",
        E,
        "Stable Diffusion: an eval_accuracy record naming a `metric` lacks the metadata "
        "that groups it into an evaluation point (samples_count; step_num in v3.1). The "
        "official checker raises on it before any check, so the log fails.",
        stable_diffusion(),
        _swap(
            '{"samples_count": 1024000, "metric": "FID"}',
            '{"epoch_num": 2, "metric": "FID"}',
            stable_diffusion(),
        ),
        "check@4.1.0",
    ),
    (
        RENAMED_LATER,
        "key-renamed-after-the-round",
        W,
        "v2.1 closed BERT: the rules were changed after the round (November 2022) to "
        "require opt_lamb_epsilon instead of opt_epsilon; the round's own tool required "
        "opt_epsilon. A log without opt_lamb_epsilon keeps its v2.1 verdict and gets this "
        "warning (today's official verdict with --strict).",
        _bert_v21(lamb_epsilon=True),
        _bert_v21(lamb_epsilon=False),
        "check@2.1.0",
    ),
]

# Why each rule exists (docs/codes.md renders it).
_WHY: dict[RuleInfo, str] = {
    NO_RECORDS: (
        "There is nothing to time or check; the official compliance checker "
        f"({LOGGING}, mlperf_logging/compliance_checker) fails such a file ('No log "
        "lines detected')."
    ),
    UNREADABLE_RECORD: (
        "The official compliance checker crashes on such a record, so the round's "
        "tools reject the log; the verdict follows them (docs/rules.md)."
    ),
    MISSING_KEY: (
        "The training rules require the logging of timing keys and hyperparameters so "
        f"that a result can be reviewed and reproduced ({TRAINING_RULES}); the "
        "official checker's REQ rules fail a log without them."
    ),
    REPEATED_DIFFERENT: (
        "A key logged twice with different values leaves its real value unknown; the "
        "official checker's EXACTLY_ONE rule fails the log (docs/rules.md)."
    ),
    MISSING_ALTERNATIVE: (
        "Epochs or blocks, and evaluations, must be logged for a run's progress and "
        "convergence to be read; the official AT_LEAST_ONE_OR rule fails a log with "
        "neither (docs/rules.md)."
    ),
    BAD_VALUE: (
        "The closed division fixes hyperparameters and their allowed forms so that "
        f"results compare like for like ({TRAINING_RULES}, hyperparameters); the "
        "official checker's CHECK rules reject other values."
    ),
    BAD_METADATA: (
        "Convergence (the epoch_num of evaluations) and the run's outcome (run_stop "
        "status) are read from metadata; the official rule files require it."
    ),
    OUT_OF_ORDER: (
        "Time to train runs from run_start to run_stop, after initialization "
        f"({TRAINING_RULES}, timing); the official checker enforces the order of these "
        "events."
    ),
    INIT_TOO_LONG: (
        "The v1.0 rules bound initialization time so that it cannot hide training "
        f"work ({TRAINING_RULES}); the official 1.0.0 checker fails a longer one."
    ),
    TARGET_NOT_REACHED: (
        "A run counts only when it reaches the benchmark's quality target "
        f"({TRAINING_RULES}, benchmarks); the official checker's ATLEAST_ONE_CHECK "
        "fails the log otherwise."
    ),
    INCOMPLETE_SET: (
        "Closed RNN-T fixes the weight initialization; logging each of the seven "
        f"tensors once is how the official rules (closed_rnnt of {LOGGING}) check it."
    ),
    UNKNOWN_BENCHMARK: (
        "Each round's rules list its benchmarks; the official checker has no rules "
        "for another name and fails the log. One error instead of a cascade of "
        "unrelated ones (docs/rules.md)."
    ),
    BAD_RELATION: (
        "Later rounds tie hyperparameters together (closed Llama 3.1 8B: decay steps "
        "and warmup steps) so that closed runs follow the reference schedule; the "
        "official checker evaluates the relation and fails the log."
    ),
    TOO_FEW_RECORDS: (
        "Stable Diffusion is judged over several evaluation points; the official "
        "rules require at least two aggregated FID/CLIP points (docs/rules.md)."
    ),
    UNAGGREGATABLE: (
        "The official checker groups evaluation records by samples_count (v3.1: "
        "step_num) before any check and raises on one it cannot group, so the round's "
        "tools reject the log."
    ),
    REPEATED_SAME: (
        "Logs written by every rank repeat their header keys; the value is not in "
        "doubt, and the official checker warns too."
    ),
    SSD_FIRST_BOUNDARY: (
        "The closed SSD rules fix the first decay boundary, but the official YAML "
        "loses one of its two CHECK entries (docs/differences.md): the rule stands, "
        "as a warning beyond the official checker."
    ),
    SGD_MOMENTUM: (
        "The rules' hyperparameter table fixes SGD momentum for closed ResNet "
        f"({TRAINING_RULES}); the official rule files do not check it, so it is a "
        "warning (docs/differences.md)."
    ),
    SGD_POLY_POWER: (
        "The rules' hyperparameter table fixes the polynomial decay power for closed "
        f"ResNet with SGD ({TRAINING_RULES}); the official rule files do not check it, "
        "so it is a warning (docs/differences.md)."
    ),
    RUN_NOT_SUCCESS: (
        "The scorer counts a run whose status is not success as not converged; the "
        "official compliance checker never reads the status, so here it is a warning "
        "(docs/differences.md)."
    ),
    TIME_BACKWARDS: (
        "Time to train is a difference of timestamps; a clock that steps back by more "
        "than a second makes it unreliable (ranks interleave by milliseconds only). "
        "Beyond the official checker."
    ),
    TIME_ZERO: (
        "A zero timestamp marks a record written or edited by hand; any timing built "
        "on it is meaningless. Beyond the official checker (docs/differences.md)."
    ),
    HEADER_CONFLICT: (
        "A configuration key logged with two values before the run leaves the "
        "configuration in doubt; no official rule covers it, so it is a warning."
    ),
    ROUND_MISMATCH: (
        "Each round's rules expect that round's log syntax; the errors another "
        "round's rules give are misleading, and --ruleset auto picks the right round "
        "(docs/rounds.md)."
    ),
    RENAMED_LATER: (
        "The rules changed after the v2.1 round; the round's own tool gives the "
        "verdict of record and today's verdict is shown as a warning "
        "(docs/differences.md)."
    ),
}

INFO: dict[str, RuleInfo] = {}
for _rule, _name, _sev, _summary, _good, _bad in _RULES:
    # The light copy the engine uses must say the same.
    assert (_rule.name, _rule.severity) == (_name, _sev), _rule.code
    INFO[_rule.code] = register(
        _rule.replace(summary=_summary, good_example=_good, bad_example=_bad, rationale=_WHY[_rule])
    )
for _rule, _name, _sev, _summary, _good, _bad, _stage in _ROUND_RULES:
    assert (_rule.name, _rule.severity) == (_name, _sev), _rule.code
    INFO[_rule.code] = register(
        _rule.replace(
            summary=_summary,
            good_example=_good,
            bad_example=_bad,
            stage=_stage,
            rationale=_WHY[_rule],
        )
    )
