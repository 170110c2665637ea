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
