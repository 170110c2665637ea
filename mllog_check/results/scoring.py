"""Per-round scoring data (schemas/scoring/<round>.yaml), each round stated as changes.

A round file names its ``base`` round; benchmarks merge key by key, ``remove``
drops retired benchmarks. Nothing in these files is evaluated: targets are numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

# ruleset (as the compliance checker names it) <-> round (as folders name it)
RULESET_ROUNDS = {"0.7.0": "v0.7", "1.0.0": "v1.0", "1.1.0": "v1.1", "2.0.0": "v2.0"}
ROUND_RULESETS = {r: s for s, r in RULESET_ROUNDS.items()}


class UnknownRound(ValueError):
    """No scoring data for the ruleset or round asked for."""


@dataclass(frozen=True, slots=True)
class BenchmarkScoring:
    name: str
    runs: int  # required result files (exact or minimum, per round)
    drop: int  # dropped from each end for the olympic mean; also failed runs allowed
    target: dict[str, Any]  # {"min": x} or {"max": x}; x may be a dict (maskrcnn)


@dataclass(frozen=True, slots=True)
class RoundScoring:
    round: str
    ruleset: str
    run_count: str  # "exact" or "minimum"
    rcp: str | None  # folder name of the round's reference data, None before v1.0
    benchmarks: dict[str, BenchmarkScoring]


def _read(round_name: str) -> dict[str, Any]:
    import yaml

    resource = files("mllog_check.schemas").joinpath("scoring", f"{round_name}.yaml")
    if not resource.is_file():
        raise UnknownRound(f"no scoring data for round {round_name}")
    data = yaml.safe_load(resource.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _merged(round_name: str) -> dict[str, Any]:
    data = _read(round_name)
    base = data.get("base")
    merged = _merged(base) if base else {"benchmarks": {}}
    benchmarks = {k: dict(v) for k, v in merged["benchmarks"].items()}
    for name in data.get("remove", []):
        benchmarks.pop(name, None)
    for name, changes in (data.get("benchmarks") or {}).items():
        benchmarks.setdefault(name, {}).update(changes)
    merged = {**merged, **{k: v for k, v in data.items() if k not in ("base", "remove")}}
    merged["benchmarks"] = benchmarks
    return merged


@cache
def scoring_for(ruleset: str) -> RoundScoring:
    """Scoring data for a ruleset ("1.0.0") or round ("v1.0")."""
    round_name = RULESET_ROUNDS.get(ruleset, ruleset)
    if round_name not in ROUND_RULESETS:
        raise UnknownRound(f"no scoring data for ruleset {ruleset}")
    data = _merged(round_name)
    return RoundScoring(
        round=round_name,
        ruleset=str(data["ruleset"]),
        run_count=str(data.get("run_count", "exact")),
        rcp=data.get("rcp"),
        benchmarks={
            name: BenchmarkScoring(name, int(b["runs"]), int(b["drop"]), dict(b["target"]))
            for name, b in sorted(data["benchmarks"].items())
        },
    )


def target_reached(target: dict[str, Any], value: Any) -> bool:
    """Whether one eval_accuracy value meets the quality target (inside (0, 1))."""
    if "min" in target:
        return _compare(target["min"], value, lambda v, t: t <= v < 1.0)
    return _compare(target["max"], value, lambda v, t: 0.0 < v <= t)


def _compare(threshold: Any, value: Any, ok: Any) -> bool:
    if isinstance(threshold, dict):
        if not isinstance(value, dict):
            return False
        return all(_compare(t, value.get(k), ok) for k, t in threshold.items())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return bool(ok(float(value), float(threshold)))
