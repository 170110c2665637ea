"""Small complete logs for the catalog's passing and failing examples (text, not code).

``GOOD`` is a compliant closed ResNet (LARS) v1.0 log; each failing example is
a compliant log with one change, so that it shows exactly one rule firing.
"""

from __future__ import annotations

import json
from typing import Any

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


def line(key: str, value: Any = None, metadata: dict[str, Any] | None = None, t: int = 0) -> str:
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


def good(replace: dict[str, Any] | None = None, accuracy: float = 0.7601) -> str:
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
    evals: list[tuple[Any, dict[str, Any]]],
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


def llama31_8b(replace: dict[str, Any] | None = None) -> str:
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


def stable_diffusion(points: list[dict[str, Any]] | None = None) -> str:
    """A compliant closed Stable Diffusion v4.x log: FID and CLIP logged per point."""
    if points is None:
        points = [
            {"samples_count": 512000, "FID": 120.0, "CLIP": 0.14},
            {"samples_count": 1024000, "FID": 80.0, "CLIP": 0.16},
        ]
    evals: list[tuple[Any, dict[str, Any]]] = []
    for point in points:
        meta: dict[str, Any] = {k: point[k] for k in ("samples_count", "epoch_num") if k in point}
        for metric in ("FID", "CLIP"):
            if metric in point:
                evals.append((point[metric], {**meta, "metric": metric}))
    return build_samples("stable_diffusion", STABLE_DIFFUSION, evals)
