"""The passing and failing example of each compliance code (``EXAMPLES``: code ->
(good, bad)), small complete logs (text, not code), loaded by ``catalog.all_rules()``
only: building them costs a single-file check more than its work.

``GOOD`` is a compliant closed ResNet (LARS) v1.0 log; each failing example is
a compliant log with one change, so that it shows exactly one rule firing. Rules of
later rounds are checked with the round their ``stage`` names (``check@5.1.0``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

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
    TARGET_AFTER_STOP,
    TARGET_NOT_REACHED,
    TIME_BACKWARDS,
    TIME_ZERO,
    TOO_FEW_RECORDS,
    UNAGGREGATABLE,
    UNKNOWN_BENCHMARK,
    UNREADABLE_RECORD,
)

if TYPE_CHECKING:
    from ..records import Metadata

T0 = 1621118606000

RESNET_LARS: list[tuple[str, Any]] = [
    ("global_batch_size", 3264),
    ("opt_name", "lars"),
    ("lars_opt_base_learning_rate", 10.5),
    ("lars_opt_end_learning_rate", 0.0001),
    ("lars_opt_learning_rate_decay_poly_power", 2),
    ("lars_opt_learning_rate_decay_steps", 14000),
    ("lars_epsilon", 0.0),
    ("lars_opt_learning_rate_warmup_epochs", 2),
    ("lars_opt_momentum", 0.9),
    ("lars_opt_weight_decay", 5e-05),
    ("gradient_accumulation_steps", 1),
    ("train_samples", 1281167),
    ("eval_samples", 50000),
]

RNNT: list[tuple[str, Any]] = [
    ("model_weights_initialization_scale", 0.45),
    ("global_batch_size", 1024),
    ("gradient_accumulation_steps", 1),
    ("opt_name", "lamb"),
    ("opt_base_learning_rate", 0.004),
    ("opt_lamb_epsilon", 1e-9),
    ("opt_lamb_learning_rate_decay_poly_power", 0.935),
    ("opt_lamb_learning_rate_hold_epochs", 40),
    ("opt_learning_rate_warmup_epochs", 6),
    ("opt_weight_decay", 1e-3),
    ("opt_lamb_beta_1", 0.9),
    ("opt_lamb_beta_2", 0.9999),
    ("opt_gradient_clip_norm", 1),
    ("opt_learning_rate_alt_decay_func", True),
    ("opt_learning_rate_alt_warmup_func", True),
    ("opt_lamb_learning_rate_min", 1e-5),
    ("train_samples", 281241),
    ("eval_samples", 2703),
    ("data_train_max_duration", 16.7),
    ("data_train_num_buckets", 6),
    ("data_speed_perturbaton_min", 0.85),
    ("data_speed_perturbaton_max", 1.15),
    ("data_spec_augment_freq_n", 2),
    ("data_spec_augment_freq_min", 0),
    ("data_spec_augment_freq_max", 20),
    ("data_spec_augment_time_n", 10),
    ("data_spec_augment_time_min", 0),
    ("data_spec_augment_time_max", 0.03),
    ("model_eval_ema_factor", 0.999),
    ("eval_max_prediction_symbols", 300),
]
RNNT_TENSORS = [
    "pre_rnn",
    "post_rnn",
    "pred_embed",
    "dec_rnn",
    "joint_pred",
    "joint_enc",
    "joint_net",
]


def line(key: str, value: Any = None, metadata: Metadata | None = None, t: int = 0) -> str:
    payload = {
        "namespace": "",
        "time_ms": T0 + t,
        "event_type": "POINT_IN_TIME",
        "key": key,
        "value": value,
        "metadata": metadata if metadata is not None else {},
    }
    return ":::MLLOG " + json.dumps(payload) + "\n"


def _header(benchmark: str, division: str, status: str | None = None) -> str:
    """The submission header of a built log (v4.0+ logs may leave out the status)."""
    keys: list[tuple[str, Any]] = [
        ("submission_benchmark", benchmark),
        ("submission_org", "Example"),
        ("submission_division", division),
    ]
    if status is not None:
        keys.append(("submission_status", status))
    keys += [("submission_platform", "1xExample"), ("cache_clear", True)]
    return "".join(line(k, v) for k, v in keys)


def build(
    benchmark: str,
    params: list[tuple[str, Any]],
    accuracy: Any,
    division: str = "closed",
    extra_init: str = "",
) -> str:
    """A whole log: header, init (params, a value None drops the key), run, evals, stop."""
    text = _header(benchmark, division, status="onprem")
    text += line("init_start", t=1000) + extra_init
    text += "".join(line(k, v, t=1500) for k, v in params if v is not None)
    text += line("init_stop", t=60000) + line("run_start", t=60001)
    for n in (1, 2):
        t = 60001 + n * 100000
        text += line("block_start", None, {"first_epoch_num": n, "epoch_count": 1}, t=t)
        text += line("block_stop", None, {"first_epoch_num": n}, t=t + 90000)
        text += line("eval_start", None, {"epoch_num": n}, t=t + 90001)
        text += line("eval_accuracy", accuracy[n - 1], {"epoch_num": n}, t=t + 95000)
        text += line("eval_stop", None, {"epoch_num": n}, t=t + 95001)
    return text + line("run_stop", None, {"status": "success"}, t=900000)


def good(replace: Metadata | None = None, accuracy: float = 0.7601) -> str:
    """The compliant closed ResNet (LARS) log; ``replace`` changes (None: drops) keys."""
    replace = replace or {}
    params = [(k, replace.get(k, v)) for k, v in RESNET_LARS]
    return build("resnet", params, (0.5, accuracy))


def rnnt(tensors: list[str] | None = None) -> str:
    inits = "".join(
        line("weights_initialization", None, {"tensor": t}, t=1200)
        for t in (RNNT_TENSORS if tensors is None else tensors)
    )
    return build("rnnt", RNNT, (0.2, 0.0575), extra_init=inits)


GOOD = good()


def build_samples(
    benchmark: str,
    params: list[tuple[str, Any]],
    evals: list[tuple[Any, Metadata]],
    division: str = "closed",
) -> str:
    """A v4.0+ style log: evaluation points counted in samples (metadata samples_count)."""
    text = _header(benchmark, division)
    text += line("init_start", t=1000)
    text += "".join(line(k, v, t=1500) for k, v in params if v is not None)
    text += line("init_stop", t=60000) + line("run_start", t=60001)
    for n, (value, metadata) in enumerate(evals, start=1):
        t = 60001 + n * 100000
        samples = {"samples_count": metadata.get("samples_count", n * 1000)}
        text += line("block_start", None, samples, t=t)
        text += line("block_stop", None, samples, t=t + 90000)
        text += line("eval_start", None, samples, t=t + 90001)
        text += line("eval_accuracy", value, metadata, t=t + 95000)
        text += line("eval_stop", None, samples, t=t + 95001)
    return text + line("run_stop", None, {"status": "success"}, t=900000)


LLAMA31_8B: list[tuple[str, Any]] = [
    ("global_batch_size", 32),
    ("max_sequence_length", 8192),
    ("opt_name", "adamw"),
    ("opt_base_learning_rate", 0.001),
    ("opt_end_learning_rate", 0.0001),
    ("opt_learning_rate_warmup_steps", 16384),
    ("opt_learning_rate_decay_steps", 1183616),
    ("opt_learning_rate_decay_schedule", "cosine with linear warmup"),
    ("opt_adamw_beta_1", 0.9),
    ("opt_adamw_beta_2", 0.95),
    ("opt_adamw_epsilon", 1e-05),
    ("opt_adamw_weight_decay", 0.1),
    ("opt_gradient_clip_norm", 1.0),
    ("gradient_accumulation_steps", 1),
    ("train_samples", 1000),
    ("eval_samples", 1024),
    ("max_steps", 1200000),
]


def llama31_8b(replace: Metadata | None = None) -> str:
    """A compliant closed Llama 3.1 8B v5.1 log; ``replace`` changes (None: drops) keys."""
    replace = replace or {}
    params = [(k, replace.get(k, v)) for k, v in LLAMA31_8B]
    evals = [(3.5, {"samples_count": 12288}), (3.29, {"samples_count": 24576})]
    return build_samples("llama31_8b", params, evals)


STABLE_DIFFUSION: list[tuple[str, Any]] = [
    ("global_batch_size", 512),
    ("opt_name", "adamw"),
    ("opt_adamw_beta_1", 0.9),
    ("opt_adamw_beta_2", 0.999),
    ("opt_adamw_epsilon", 1e-08),
    ("opt_adamw_weight_decay", 0.01),
    ("opt_base_learning_rate", 1.25e-07),
    ("opt_learning_rate_warmup_steps", 1000),
    ("gradient_accumulation_steps", 1),
    ("train_samples", 6513144),
    ("eval_samples", 30000),
]


def stable_diffusion(points: list[Metadata] | None = None) -> str:
    """A compliant closed Stable Diffusion v4.x log: FID and CLIP logged per point."""
    if points is None:
        points = [
            {"samples_count": 512000, "FID": 120.0, "CLIP": 0.14},
            {"samples_count": 1024000, "FID": 80.0, "CLIP": 0.16},
        ]
    evals: list[tuple[Any, Metadata]] = []
    for point in points:
        meta: Metadata = {k: point[k] for k in ("samples_count", "epoch_num") if k in point}
        for metric in ("FID", "CLIP"):
            if metric in point:
                evals.append((point[metric], {**meta, "metric": metric}))
    return build_samples("stable_diffusion", STABLE_DIFFUSION, evals)


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


EXAMPLES: dict[str, tuple[str, str]] = {
    NO_RECORDS.code: (
        GOOD,
        "training started\nloss 3.2\n",
    ),
    UNREADABLE_RECORD.code: (
        GOOD,
        _swap('"value": true, "metadata": {}', '"value": true'),
    ),
    MISSING_KEY.code: (
        GOOD,
        good({"lars_epsilon": None}),
    ),
    REPEATED_DIFFERENT.code: (
        GOOD,
        _swap(
            line("opt_name", "lars", t=1500),
            line("opt_name", "lars", t=1500) + line("global_batch_size", 1632, t=1500),
        ),
    ),
    MISSING_ALTERNATIVE.code: (
        GOOD,
        "".join(x for x in GOOD.splitlines(True) if '"block_' not in x),
    ),
    BAD_VALUE.code: (
        GOOD,
        good({"lars_opt_end_learning_rate": 0.001}),
    ),
    BAD_METADATA.code: (
        GOOD,
        _swap('"value": 0.7601, "metadata": {"epoch_num": 2}', '"value": 0.7601, "metadata": {}'),
    ),
    OUT_OF_ORDER.code: (
        GOOD,
        _swap('"key": "init_stop"', '"key": "init_stop_late"').replace(
            ':::MLLOG {"namespace": "", "time_ms": 1621118666001, "event_type": "POINT_IN_TIME", '
            '"key": "run_start", "value": null, "metadata": {}}\n',
            ':::MLLOG {"namespace": "", "time_ms": 1621118666001, "event_type": "POINT_IN_TIME", '
            '"key": "run_start", "value": null, "metadata": {}}\n' + line("init_stop", t=60002),
        ),
    ),
    INIT_TOO_LONG.code: (
        GOOD,
        _swap(
            '"time_ms": 1621118666000, "event_type": "POINT_IN_TIME", "key": "init_stop"',
            '"time_ms": 1621120607000, "event_type": "POINT_IN_TIME", "key": "init_stop"',
        ),
    ),
    TARGET_NOT_REACHED.code: (
        GOOD,
        good(accuracy=0.7579),
    ),
    INCOMPLETE_SET.code: (
        rnnt(),
        rnnt(RNNT_TENSORS[:-1]),
    ),
    UNKNOWN_BENCHMARK.code: (
        GOOD,
        _swap('"value": "resnet"', '"value": "gpt3"'),
    ),
    BAD_RELATION.code: (
        llama31_8b(),
        llama31_8b({"opt_learning_rate_decay_steps": 1200000}),
    ),
    TOO_FEW_RECORDS.code: (
        stable_diffusion(),
        stable_diffusion([{"samples_count": 1024000, "FID": 80.0, "CLIP": 0.16}]),
    ),
    UNAGGREGATABLE.code: (
        stable_diffusion(),
        _swap(
            '{"samples_count": 1024000, "metric": "FID"}',
            '{"epoch_num": 2, "metric": "FID"}',
            stable_diffusion(),
        ),
    ),
    REPEATED_SAME.code: (
        GOOD,
        _swap(line("lars_epsilon", 0.0, t=1500), line("lars_epsilon", 0.0, t=1500) * 2),
    ),
    SSD_FIRST_BOUNDARY.code: (
        _ssd(44),
        _ssd(43),
    ),
    SGD_MOMENTUM.code: (
        _sgd(),
        _sgd(momentum=0.95),
    ),
    SGD_POLY_POWER.code: (
        _sgd(),
        _sgd(power=1),
    ),
    RUN_NOT_SUCCESS.code: (
        GOOD,
        _swap('{"status": "success"}', '{"status": "aborted"}'),
    ),
    TARGET_AFTER_STOP.code: (
        GOOD,
        good(accuracy=0.7) + line("eval_accuracy", 0.7601, {"epoch_num": 3}, t=900001),
    ),
    TIME_BACKWARDS.code: (
        GOOD,
        _swap('"time_ms": 1621118866001', '"time_ms": 1621118756001'),
    ),
    TIME_ZERO.code: (
        GOOD,
        _swap(
            '"time_ms": 1621118606000, "event_type": "POINT_IN_TIME", "key": "submission_org"',
            '"time_ms": 0, "event_type": "POINT_IN_TIME", "key": "submission_org"',
        ),
    ),
    HEADER_CONFLICT.code: (
        GOOD,
        _swap(
            line("cache_clear", True),
            line("cache_clear", True)
            + line("opt_gradient_clip_norm", 1.0)
            + line("opt_gradient_clip_norm", 2.0),
        ),
    ),
    ROUND_MISMATCH.code: (
        GOOD,
        ':::MLL 1560881700.860 submission_org: {"metadata": {}, "value": "Example"}\n',
    ),
    RENAMED_LATER.code: (
        _bert_v21(lamb_epsilon=True),
        _bert_v21(lamb_epsilon=False),
    ),
}
