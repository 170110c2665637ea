"""Per-round scoring data (schemas/scoring/<round>.yaml), each round stated as changes.

A round file names the round it ``extends``; benchmarks merge key by key, ``remove``
drops retired benchmarks (mllog_check.datafiles: one inheritance for every data kind).
Nothing in these files is evaluated: targets are numbers.

A quality target is a set of bounds, every one of which the logged value must meet:
``min`` (>=), ``max`` (<=), ``above`` (>), ``below`` (<). The round's
``target_defaults`` (v0.7: accuracies inside (0, 1)) fill the bounds a target does not
state; v0.6 BLEU says ``below: 100``. A threshold is a number, a dict (a dict value,
compared key by key: v0.7+ Mask R-CNN) or a list (a list value of the same length,
compared item by item: v0.6 Mask R-CNN [BBOX, SEGM]); a number next to a dict or list
threshold applies to every item. A bound set to null removes a default (v3.0 GPT-3's
log perplexity has no upper bound 1.0).

How the RCP rules count a run's convergence (``converged_at``): ``epoch_num`` (the
last evaluation's metadata epoch_num, rounded to 3 decimals; the default),
``samples_count`` or ``step_num`` (that metadata field of the last evaluation), or
``train_samples`` (v0.7-v2.0 BERT: a train_samples logged after the last evaluation,
else epoch_num). ``first_reaching`` takes the first evaluation that meets the target
instead of the last (Stable Diffusion); ``split_metrics`` says the metrics of one
evaluation arrive as separate records named by metadata ``metric``.

How a run is timed (``timed_by``): ``run_stop`` (run_start to run_stop, the default) or
``eval_result`` (v0.6 MiniGo, evaluated after training: the eval_result record's
metadata ``timestamp``, seconds from run_start; 0 when no model reached the target).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import DataError, UsageError
from ..rounds import Round
from ..rules.schema import finite_number

if TYPE_CHECKING:
    from ..datafiles import Document
    from ..rules.schema import Schema

# A threshold: a number, or one per item of a dict or list quality value (module doc).
Threshold = float | dict[str, float] | list[float]
# A quality target: its bounds, kind (TARGET_KINDS) -> threshold.
Target = dict[str, Threshold]
# A target as a scoring file states it: a null bound removes an inherited one.
StatedTarget = dict[str, Threshold | None]


class UnknownRound(UsageError, ValueError):
    """No scoring data for the ruleset or round asked for."""


class ScoringDataError(DataError, ValueError):
    """A scoring file states something the scorer cannot compare (a packaging bug)."""


# Target kind -> comparison of a logged number with its threshold.
TARGET_KINDS: dict[str, Callable[[float, float], bool]] = {
    "min": lambda value, bound: value >= bound,
    "max": lambda value, bound: value <= bound,
    "above": lambda value, bound: value > bound,
    "below": lambda value, bound: value < bound,
}


@dataclass(frozen=True, slots=True)
class BenchmarkScoring:
    name: str
    runs: int  # required result files (exact or minimum, per round)
    drop: int  # dropped from each end for the olympic mean; also failed runs allowed
    target: Target  # defaults merged
    metric: str = "accuracy"  # what eval_accuracy measures (eval loss, FID and CLIP, ...)
    converged_at: str = "epoch_num"  # how the RCP rules count convergence (module doc)
    first_reaching: bool = False  # the first evaluation meeting the target, not the last
    split_metrics: bool = False  # one record per metric, named by metadata "metric"
    rcp_allowance: float = 0.0  # how far below the RCP minimum a mean may still pass
    direction: str = "up"  # quality improves going "up" (accuracy) or "down" (loss)
    key: str = "eval_accuracy"  # the quality record (HPC CosmoFlow and OC20: eval_error)
    rcp: bool = True  # False: the rules define no RCP for it (registry: without_rcp)
    items: tuple[str, ...] = ()  # names of a list value's items, in order (read_quality)
    # How a run is timed: "run_stop" (run_start to run_stop), or "eval_result" (v0.6
    # MiniGo: that record's metadata timestamp, seconds from run_start; docs/scores.md).
    timed_by: str = "run_stop"
    # The round's logs state no run_stop status (scoring ``unlogged_status: target``:
    # v0.5 NVIDIA, HPC v0.7 CosmoFlow): a run_stop without one ended with success when
    # an evaluation before it meets the target (docs/scores.md, "Runs without a status").
    status_from_target: bool = False

    def reached(self, value: Any) -> bool | None:
        """Whether a logged quality value meets the target; None when it cannot be read
        (read_quality): never a missed target."""
        reading = read_quality(self.target, value, self.items)
        return None if reading is None else target_reached(self.target, reading)


@dataclass(frozen=True, slots=True)
class RoundScoring:
    round: str
    ruleset: str
    run_count: str  # "exact" or "minimum"
    rcp: str | None  # path of the round's reference data (registry), None without
    benchmarks: dict[str, BenchmarkScoring]
    # Why runs are counted by convergence and a clean parse instead of the round's
    # compliance rules (v0.6); None: the rules decide.
    approximate_compliance: str | None = None
    # RCP statistics as the round's official tools computed them: "trimmed" (v1.0-v2.0)
    # or "normalized" (v2.1+: stdev over all reference runs, pruning on means, scores
    # of results faster than the reference mean normalized); docs/scores.md.
    rcp_method: str = "trimmed"
    # Other names of a benchmark in folders and logs (registry), e.g. retinanet -> ssd.
    aliases: dict[str, str] = field(default_factory=dict)

    def benchmark(self, name: str) -> BenchmarkScoring | None:
        """The scoring of a benchmark named by a folder or log (any of its names)."""
        found = self.benchmarks.get(name)
        if found is None and name in self.aliases:
            found = self.benchmarks.get(self.aliases[name])
        return found

    # Why the RCP check cannot run although the round has one (its data not in this build).
    rcp_missing: str | None = None
    # Whether a result faster than the RCP reference mean has its score multiplied by the
    # normalization factor (Training v2.1+). The official HPC summarizer computes the
    # score before its RCP check writes scaling.json: the factor is said, not applied.
    normalize_score: bool = True


def _read(round_name: str) -> Document:
    from ..datafiles import DataFileError, load_yaml, validate
    from ..prepared import schemas_dir
    from ..rounds import RoundError, parse_round

    try:
        rnd = parse_round(round_name)
    except RoundError as err:
        raise UnknownRound(str(err)) from None
    resource = rnd.path("scoring")
    if resource is None:
        why = rnd.missing("scoring") or f"round {rnd.version} has no scoring data"
        raise UnknownRound(why)
    try:
        data = load_yaml(resource)
        validate(data, schemas_dir() / "scoring" / "scoring.schema.json", resource)
    except DataFileError as err:
        raise ScoringDataError(str(err)) from None
    if not isinstance(data, dict):
        raise ScoringDataError(f"{resource}: a scoring file is a mapping")
    return data


def _merged(round_name: str) -> Document:
    from ..datafiles import EXTENDS, DataFileError, merge_named

    data = _read(round_name)
    parent = data.get(EXTENDS)
    merged = _merged(parent) if parent else {"benchmarks": {}}
    try:
        benchmarks = merge_named(
            {k: dict(v) for k, v in merged["benchmarks"].items()},
            data.get("benchmarks"),
            data.get("remove"),
            f"scoring of {round_name}",
            update=True,
        )
    except DataFileError as err:
        raise ScoringDataError(str(err)) from None
    merged = {**merged, **{k: v for k, v in data.items() if k not in (EXTENDS, "remove")}}
    merged["benchmarks"] = benchmarks
    return merged


def scoring_for(ruleset: str | Round) -> RoundScoring:
    """Scoring data for a round: its Round, or any spelling ("1.0.0", "v1.0",
    "training-1.0.0").

    Targets come from the round's scoring file; run counts, dropped runs and the RCP
    data from the round registry (never restated in the scoring file).
    """
    return _scoring(ruleset.version if isinstance(ruleset, Round) else ruleset)


def known_scoring(ruleset: str | Round) -> RoundScoring | None:
    """Scoring data for a round, None when the round has none (an unknown round, or none
    in the registry or this build); broken scoring data still raises ScoringDataError."""
    try:
        return scoring_for(ruleset)
    except UnknownRound:
        return None


@cache
def _scoring(ruleset: str) -> RoundScoring:
    from ..rounds import RoundError, parse_round

    try:
        rnd = parse_round(ruleset)
    except RoundError as err:
        raise UnknownRound(f"no scoring data for ruleset {ruleset}: {err}") from None
    data = _merged(rnd.version)
    defaults = dict(data.get("target_defaults") or {})
    rcp = rnd.path("rcp")
    return RoundScoring(
        round=rnd.folder,
        ruleset=rnd.version,
        run_count=rnd.run_count,
        rcp=str(rcp) if rcp is not None else None,
        # The registry says which benchmarks the round has: a benchmark inherited from
        # the base round's file that the round does not have is left out.
        benchmarks={
            name: _benchmark(rnd, name, defaults, b, data.get("unlogged_status") == "target")
            for name, b in sorted(data["benchmarks"].items())
            if rnd.benchmark(name) is not None
        },
        approximate_compliance=data.get("approximate_compliance"),
        rcp_method=str(data.get("rcp_method", "trimmed")),
        rcp_missing=rnd.missing("rcp"),
        normalize_score=bool(data.get("normalize_score", True)),
        aliases={
            other: bench.name
            for bench in (rnd.benchmarks or {}).values()
            for other in bench.names
            if bench.name in data["benchmarks"] and other not in data["benchmarks"]
        },
    )


CONVERGED_AT = frozenset({"epoch_num", "samples_count", "step_num", "train_samples"})

# JSON Schema bounds of a rule's quality target -> target kinds (TARGET_KINDS).
_BOUNDS = {"minimum": "min", "maximum": "max", "exclusiveMinimum": "above",
           "exclusiveMaximum": "below"}  # fmt: skip
_PLAIN = frozenset({*_BOUNDS, "type", "properties", "required"})


def rule_target(rnd: Round, name: str) -> Target:
    """The quality target the round's compliance rules state for a benchmark (the
    closed section's ``eval_accuracy`` or ``aggregated_eval_accuracy`` ``target``), as
    target bounds; {} when the rules state none or one that bounds cannot express. A
    scoring file states only what differs from it (each target is stated once)."""
    if not rnd.has_rules():
        return {}
    from ..rules import load_ruleset

    section = load_ruleset(rnd.version).sections.get(f"closed_{name}")
    if section is None:
        return {}
    for key in ("eval_accuracy", "aggregated_eval_accuracy"):
        spec = section.keys.get(key)
        if spec is not None and spec.target is not None:
            return _bounds(spec.target.schema) or {}
    return {}


def _bounds(schema: Schema) -> Target | None:
    """Target bounds of a JSON Schema fragment: a number's bounds, or per-item bounds of
    an object's properties (one number when every item has the same); None otherwise."""
    if set(schema) - _PLAIN:
        return None
    if "properties" not in schema:
        target: Target = dict(_number_bounds(schema))
        return target
    properties: dict[str, Schema] = schema["properties"]
    if any(set(sub) - _PLAIN or "properties" in sub for sub in properties.values()):
        return None  # nested objects, or an item bounds cannot express
    items = {item: _number_bounds(sub) for item, sub in properties.items()}
    if not all(items.values()):
        return None  # an item without bounds
    out: Target = {}
    for kind in sorted({k for b in items.values() for k in b}):
        values = {item: b[kind] for item, b in items.items() if kind in b}
        if len(values) != len(items):
            return None  # a bound on some items only: not a target kind
        same = set(values.values())
        out[kind] = same.pop() if len(same) == 1 else values
    return out


def _number_bounds(schema: Schema) -> dict[str, float]:
    """The bounds a fragment sets on a number, as target kinds."""
    return {_BOUNDS[k]: v for k, v in schema.items() if k in _BOUNDS}


def _benchmark(
    rnd: Round, name: str, defaults: StatedTarget, b: Document, status_from_target: bool = False
) -> BenchmarkScoring:
    """A benchmark's scoring: runs and drops from the round registry (schemas/rounds.yaml,
    the one place that states them), targets and RCP details from the scoring file."""
    round_name = rnd.folder
    converged_at = str(b.get("converged_at", "epoch_num"))
    if converged_at not in CONVERGED_AT:
        raise ScoringDataError(f"{round_name} {name}: converged_at {converged_at!r} unknown")
    known = rnd.benchmark(name)
    if known is None:
        raise ScoringDataError(f"{round_name} {name}: not a benchmark of the round registry")
    if {"runs", "drop"} & set(b):
        raise ScoringDataError(f"{round_name} {name}: runs and drops belong to schemas/rounds.yaml")
    runs, drop = known.runs, known.drop
    return BenchmarkScoring(
        name,
        int(runs),
        int(drop),
        _target(round_name, name, defaults, b, rule_target(rnd, name)),
        metric=str(b.get("metric", "accuracy")),
        direction=str(b.get("direction", "up")),
        converged_at=converged_at,
        first_reaching=bool(b.get("first_reaching", False)),
        split_metrics=bool(b.get("split_metrics", False)),
        rcp_allowance=float(b.get("rcp_allowance", 0.0)),
        key=str(b.get("key", "eval_accuracy")),
        rcp=known.rcp,
        items=tuple(str(i) for i in b.get("items") or ()),
        timed_by=str(b.get("timed_by", "run_stop")),
        status_from_target=status_from_target,
    )


def _target(
    round_name: str,
    name: str,
    defaults: StatedTarget,
    bench: Document,
    ruled: Target | None = None,
) -> Target:
    """The round's target defaults, then the rules' target (``rule_target``), then what
    the scoring file states (null removes a bound)."""
    own = bench.get("target") or {}
    merged = {**defaults, **(ruled or {}), **own}
    target = {kind: t for kind, t in merged.items() if t is not None}  # null: no such bound
    stated = {kind for kind, t in {**(ruled or {}), **own}.items() if t is not None}
    if set(merged) - set(TARGET_KINDS) or not stated & set(TARGET_KINDS):
        raise ScoringDataError(f"{round_name} {name}: target {own!r}: unknown kind")
    if len({_shape(t) for t in target.values()} - {None}) > 1:
        raise ScoringDataError(
            f"{round_name} {name}: target {target!r}: thresholds differ in shape"
        )
    return target


def _shape(threshold: Any) -> tuple[Any, ...] | None:
    if isinstance(threshold, dict):
        return ("dict", *sorted(threshold))
    if isinstance(threshold, list):
        return ("list", len(threshold))
    return None


def target_reached(target: Target, value: Any) -> bool:
    """Whether one eval_accuracy value meets every bound of the quality target."""
    shaped = next((t for t in target.values() if isinstance(t, dict | list)), None)
    if isinstance(shaped, dict):
        if not isinstance(value, dict):
            return False
        return all(
            target_reached({k: _item(t, key) for k, t in target.items()}, value.get(key))
            for key in shaped
        )
    if isinstance(shaped, list):
        if not isinstance(value, list) or len(value) != len(shaped):
            return False
        return all(
            target_reached({k: _item(t, i) for k, t in target.items()}, item)
            for i, item in enumerate(value)
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    # An int is compared as it is: Python compares int and float exactly, and float() of
    # an integer beyond floats raised (check --follow's status line, a logged 1e400 as 1 and
    # 400 zeros).
    return all(TARGET_KINDS[kind](value, _number(t)) for kind, t in target.items())


def _number(threshold: Threshold) -> float:
    """A threshold of a target without dict or list thresholds (``_target`` refuses a mix)."""
    if isinstance(threshold, dict | list):
        raise ScoringDataError(f"threshold {threshold!r} beside number thresholds")
    return float(threshold)


def read_quality(target: Target, value: Any, items: tuple[str, ...] = ()) -> Any:
    """A logged quality value in the shape of the target's thresholds, or None when it
    cannot be read. The shapes published logs use (docs/scores.md, "Quality values"):
    a number; a number written as text (v0.6 NVIDIA Transformer BLEU); a dict wrapping
    the value under "value" (v0.5 ``{"epoch": 3, "value": 0.7}``) or under one other key
    (v0.6 NVIDIA Mask R-CNN ``{"accuracy": {"BBOX": .., "SEGM": ..}}``); a list of the
    target's length (v0.6 Google Mask R-CNN), read by name when ``items`` names it."""
    shaped = next((t for t in target.values() if isinstance(t, dict | list)), None)
    value = _unwrapped(value, shaped, items)
    if isinstance(shaped, dict):
        if isinstance(value, list) and len(items) == len(value):
            value = dict(zip(items, value, strict=True))
        if not isinstance(value, dict) or not set(shaped) <= set(value):
            return None
        read = {key: _number_of(value[key]) for key in shaped}
        return None if None in read.values() else read
    if isinstance(shaped, list):
        if isinstance(value, dict) and items and set(items) <= set(value):
            value = [value[name] for name in items]
        if not isinstance(value, list) or len(value) != len(shaped):
            return None
        numbers = [_number_of(item) for item in value]
        return None if None in numbers else numbers
    return _number_of(value)


def _unwrapped(value: Any, shaped: Any, items: tuple[str, ...]) -> Any:
    """The value inside its wrappers (``read_quality``), at most a few levels deep."""
    names = set(shaped) if isinstance(shaped, dict) else set(items)
    for _ in range(4):
        if not isinstance(value, dict) or (names and names <= set(value)):
            return value
        if "value" in value:
            value = value["value"]
        elif len(value) == 1:
            value = next(iter(value.values()))
        else:
            return value
    return value


def _number_of(value: Any) -> float | None:
    """A finite number, or one written as text; None for anything else."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    return finite_number(value)


def _item(threshold: Any, key: Any) -> Any:
    """The threshold for one item of a dict or list value (a number applies to all)."""
    if isinstance(threshold, dict | list):
        return threshold[key]
    return threshold
