"""Per-round facts the package checker needs: benchmarks and runs per result set.

The results stage's per-round scoring data (schemas/scoring/<round>.yaml) is the
source when installed; ROUNDS below is the fallback for builds without it and for
v0.6, which that data does not cover (training_policies "Benchmark results" tables:
v0.6 to v1.0 require exactly N runs; from v1.1 N is a minimum).
"""

from __future__ import annotations

from dataclasses import dataclass

_V10_RUNS = {
    "resnet": 5,
    "ssd": 5,
    "maskrcnn": 5,
    "dlrm": 5,
    "bert": 10,
    "rnnt": 10,
    "minigo": 10,
    "unet3d": 40,
}
_V07_RUNS = {
    "resnet": 5,
    "ssd": 5,
    "maskrcnn": 5,
    "dlrm": 5,
    "bert": 10,
    "gnmt": 10,
    "transformer": 10,
    "minigo": 10,
}
_V06_RUNS = {
    "resnet": 5,
    "ssd": 5,
    "maskrcnn": 5,
    "gnmt": 10,
    "transformer": 10,
    "ncf": 10,
    "minigo": 10,
}


# v2.1 onwards (benchmarks of each round, training_policies; runs per benchmark as the
# official tools count them): the fallback when the results stage's data lacks a round.
_LATER_RUNS = {
    "bert": 10,
    "dlrm": 5,
    "dlrm_dcnv2": 10,
    "gpt3": 3,
    "maskrcnn": 5,
    "resnet": 5,
    "ssd": 5,
    "retinanet": 5,
    "rnnt": 10,
    "unet3d": 40,
    "minigo": 10,
    "stable_diffusion": 10,
    "gnn": 10,
    "rgat": 10,
    "llama2_70b_lora": 10,
    "llama31_405b": 3,
    "llama31_8b": 10,
    "flux1": 10,
    "gpt_oss_20b": 10,
    "deepseekv3_671b": 3,
    "qwen35_397b_grpo": 3,
    "dlrmv4": 10,
}
_LATER_BENCHMARKS = {
    "2.1.0": "bert dlrm maskrcnn minigo resnet ssd rnnt unet3d",
    "3.0.0": "bert dlrm_dcnv2 gpt3 maskrcnn resnet ssd rnnt unet3d",
    "3.1.0": "bert dlrm_dcnv2 gpt3 maskrcnn resnet ssd rnnt unet3d stable_diffusion",
    "4.0.0": "bert dlrm_dcnv2 gpt3 resnet ssd unet3d stable_diffusion llama2_70b_lora gnn",
    "4.1.0": "bert dlrm_dcnv2 gpt3 ssd stable_diffusion llama2_70b_lora gnn",
    "5.0.0": "bert dlrm_dcnv2 retinanet stable_diffusion llama2_70b_lora rgat llama31_405b",
    "5.1.0": "llama31_8b dlrm_dcnv2 retinanet flux1 llama2_70b_lora rgat llama31_405b",
    "6.0.0": "llama31_8b dlrm_dcnv2 flux1 llama2_70b_lora llama31_405b gpt_oss_20b deepseekv3_671b",
    "6.1.0": "llama31_8b flux1 llama2_70b_lora gpt_oss_20b deepseekv3_671b qwen35_397b_grpo dlrmv4",
}


@dataclass(frozen=True, slots=True)
class Round:
    ruleset: str  # "1.0.0"
    name: str  # "v1.0": the folder name of the round in the results repositories
    runs: dict[str, int]
    exact_runs: bool  # True: exactly N runs; False: at least N


ROUNDS: dict[str, Round] = {
    "0.6.0": Round("0.6.0", "v0.6", _V06_RUNS, True),
    "0.7.0": Round("0.7.0", "v0.7", _V07_RUNS, True),
    "1.0.0": Round("1.0.0", "v1.0", _V10_RUNS, True),
    "1.1.0": Round("1.1.0", "v1.1", _V10_RUNS, False),
    "2.0.0": Round("2.0.0", "v2.0", _V10_RUNS, False),
}
ROUNDS |= {
    ruleset: Round(
        ruleset,
        "v" + ruleset.rsplit(".", 1)[0],
        {name: _LATER_RUNS[name] for name in names.split()},
        False,
    )
    for ruleset, names in _LATER_BENCHMARKS.items()
}

# v2.0 RetinaNet results sit in the `ssd` folder (NOTES.md, "Rounds").
FOLDER_ALIASES: dict[str, frozenset[str]] = {"ssd": frozenset({"ssd", "retinanet"})}


class UnknownRound(ValueError):
    """A ruleset that the package checker has no round data for."""


def get_round(ruleset: str) -> Round:
    """Round facts from the results stage's scoring data (schemas/scoring/), else ROUNDS."""
    scoring = _scoring_round(ruleset)
    if scoring is not None:
        return scoring
    try:
        return ROUNDS[ruleset]
    except KeyError:
        known = ", ".join(sorted(ROUNDS))
        raise UnknownRound(f"unknown ruleset {ruleset!r} (known: {known})") from None


def _scoring_round(ruleset: str) -> Round | None:
    try:
        from ..results.scoring import scoring_for
    except ImportError:  # results stage absent from this build: ROUNDS is the fallback
        return None
    try:
        data = scoring_for(ruleset)
    except Exception:  # UnknownRound or unreadable data: fall back to ROUNDS
        return None
    runs = {name: bench.runs for name, bench in data.benchmarks.items()}
    return Round(ruleset, data.round, runs, data.run_count == "exact")
