"""Evaluation cadence (MLR060 ``eval-cadence``, a warning beyond the official tools):
whether a closed run evaluates as often as its round's training rules require.

The schedules are data (``schemas/cadence/eval_cadence.yaml``: per round the "Evaluation
frequency" table of training_rules.adoc, section "Quality measure"; a round states what
changed from the round it ``extends``). A run's evaluations are the quality records
before its first ``run_stop``, placed by a metadata count (``epoch_num`` unless the
schedule names another); they must start no later than the schedule's first point and
never be further apart than its interval (evaluating more often is allowed). One problem
per log, naming the gap found and the one required (docs/scores.md, "Evaluation cadence").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..problems import Problem
from ..records import ParseResult
from ..rules.schema import finite_number
from . import codes

if TYPE_CHECKING:
    from ..datafiles import Document

SLACK = 1e-6  # epoch_num logged as a float (ResNet 4.0, DLRM 1.0499947)


@dataclass(frozen=True, slots=True)
class Cadence:
    """One benchmark's schedule with its batch-dependent amounts resolved."""

    unit: str  # "epochs" or "samples"
    every: float | None  # None: fixed points (``at``)
    first: float | None  # None: the rules name no start
    at: tuple[float, ...] = ()
    slack: float = 0.0  # the samples of a step where a point may be rounded up to it
    position: str = "epoch_num"  # the metadata count that places an evaluation
    last_only: bool = False  # only the last two evaluations must be one interval apart

    def allowed(self, position: float) -> float:
        """The most units the evaluation after ``position`` may come later."""
        if self.every is not None:
            return self.every
        at = self.at
        if position < at[0]:
            return at[0]
        for low, high in itertools.pairwise(at):
            if low <= position < high:
                return high - low
        return at[-1] - at[-2]


@cache
def _table() -> Document:
    """Each round's whole schedule table, its ``extends`` chain resolved."""
    from ..datafiles import DataFileError, load_yaml, merge_named, validate
    from ..prepared import schemas_dir

    folder = schemas_dir() / "cadence"
    path = folder / "eval_cadence.yaml"
    data = load_yaml(path)
    validate(data, folder / "eval_cadence.schema.json", path)
    resolved: Document = {}
    for name, entry in data["rounds"].items():  # a round extends one stated before it
        base = entry.get("extends")
        if base is not None and base not in resolved:
            raise DataFileError(f"{path}: {name} extends {base!r}, not stated before it")
        parent = resolved.get(base, {"rules": "", "benchmarks": {}})
        benchmarks = merge_named(
            dict(parent["benchmarks"]),
            entry.get("benchmarks"),
            entry.get("remove"),
            f"{path}: {name}",
        )
        rules = entry.get("rules", parent["rules"])
        resolved[name] = {"rules": rules, "benchmarks": benchmarks}
    return resolved


def covered() -> dict[str, tuple[str, ...]]:
    """The rounds whose schedules are known, with their benchmarks (docs, tests)."""
    return {name: tuple(sorted(r["benchmarks"])) for name, r in _table().items()}


def cadence_for(round_folder: str, benchmark: str, batch: Any) -> tuple[Cadence, str] | None:
    """The schedule of ``benchmark`` in a round (its folder name, ``v1.0``) at global
    batch size ``batch``, and the rules it comes from; None where no schedule is known
    or a batch-dependent one lacks a usable batch size."""
    entry = _table().get(round_folder)
    spec = None if entry is None else entry["benchmarks"].get(benchmark)
    if entry is None or spec is None:
        return None
    # A batch size a system can have (beyond 2**40 a hostile one: its formulas divide).
    usable = isinstance(batch, int) and not isinstance(batch, bool) and 0 < batch <= 2**40
    gbs = batch if usable else None
    every = _amount(spec.get("every"), gbs)
    first = _amount(spec.get("first"), gbs, every)
    if ("every" in spec and every is None) or ("first" in spec and first is None):
        return None
    at = tuple(float(x) for x in spec.get("at", ()))
    if at:
        first = at[0]
    # batch_slack: true is one global batch; a number, that many (packed sequences)
    batches = float(spec.get("batch_slack", 0))
    slack = batches * gbs if gbs else 0.0
    cadence = Cadence(
        spec["unit"],
        every,
        first,
        at,
        slack,
        spec.get("position", "epoch_num"),
        bool(spec.get("last_only", False)),
    )
    return cadence, " ".join(entry["rules"].split())


def _amount(spec: Any, gbs: int | None, every: float | None = None) -> float | None:
    """A number as is; at batch ``gbs``, a BERT batch formula, a U-Net3D pass count, a
    sample count rounded up to whole batches, a count of batches, or the first point of
    the ``every`` grid past a threshold."""
    if spec is None or isinstance(spec, int | float):
        return None if spec is None else float(spec)
    if gbs is None:
        return None
    if "batches" in spec:  # GBS * FLOOR|CEIL(plus + per_gbs / GBS)
        b = spec["batches"]
        rounding = math.floor if b["round"] == "floor" else math.ceil
        return float(gbs * rounding(b["plus"] + b["per_gbs"] / gbs))
    if "at_least" in spec:  # CEIL(FLOOR((per_batch * GBS + plus) / divide) / every) * every
        a = spec["at_least"]
        if not every:
            return None
        threshold = math.floor((a["per_batch"] * gbs + a["plus"]) / a["divide"])
        return float(math.ceil(threshold / every) * every)
    if "batch" in spec:  # FLOOR(scale * (per_batch * GBS + plus), floor)
        b = spec["batch"]
        value = b["scale"] * (b["per_batch"] * gbs + b["plus"])
        return float(math.floor(value / b["floor"]) * b["floor"])
    if "round_up" in spec:
        return _rounded_up(spec, gbs)
    # CEILING(passes * dataset / samples_per_epoch), samples_per_epoch padded to batches
    per_epoch = math.ceil(spec["dataset"] / gbs) * gbs
    epochs = math.ceil(spec["passes"] * spec["dataset"] / per_epoch)
    return float(epochs * per_epoch if spec.get("in_samples") else epochs)


def _rounded_up(spec: Document, gbs: int) -> float:
    """CEIL(round_up / GBS) * GBS samples ("if N is not divisible by GBS"), counted in
    steps (``steps``) or tokens (``scale``); with ``skip``, the evaluation after the
    first FLOOR(per_batch * GBS + plus) skipped ones."""
    steps = math.ceil(spec["round_up"] / gbs)
    value = float(steps if spec.get("steps") else steps * gbs) * spec.get("scale", 1)
    skip = spec.get("skip")
    if skip is not None:
        value *= math.floor(skip["per_batch"] * gbs + skip["plus"]) + 1
    return value


def positions(result: ParseResult, key: str, count: str = "epoch_num") -> list[float]:
    """Where a run evaluated (metadata ``count`` of ``key`` before the first run_stop),
    in order, each once; evaluations without a number are not placed."""
    found: set[float] = set()
    for rec in result.records:
        if rec.key == "run_stop":
            break
        if rec.key != key or not isinstance(rec.metadata, dict):
            continue
        number = finite_number(rec.metadata.get(count))
        if number is not None:
            found.add(number)
    return sorted(found)


def judge(places: Sequence[float], cadence: Cadence) -> str:
    """What breaks the schedule ('' when nothing does)."""
    if not places:
        return ""
    unit, parts = cadence.unit, []
    if cadence.last_only:  # the rules let the earlier checkpoints be skipped, not the last two
        alone = len(places) == 1 and places[0] > cadence.allowed(0) + cadence.slack + SLACK
        if alone:
            return f"one evaluation only ({_at(unit, places[0])}) where the last two are required"
        places = places[-2:]
    late = cadence.first is not None and places[0] > cadence.first + cadence.slack + SLACK
    if late:
        parts.append(f"first evaluation at {_at(unit, places[0])}, required by {cadence.first:g}")
    over = [
        (a, b)
        for a, b in itertools.pairwise(places)
        if b - a > cadence.allowed(a) + cadence.slack + SLACK
    ]
    if over:
        a, b = max(over, key=lambda g: (g[1] - g[0]) / cadence.allowed(g[0]))
        parts.append(
            f"{len(over)} gap(s) between evaluations wider than the rules allow, the widest "
            f"{b - a:g} {unit} ({_at(unit, a)} to {b:g}) where at most {cadence.allowed(a):g} "
            f"{unit} is required"
        )
    return "; ".join(parts)


def _at(unit: str, value: float) -> str:
    return f"{unit[:-1]} {value:g}"  # "epoch 4", "sample 150000", "token ...", "step ..."


def cadence_problems(
    results: Sequence[ParseResult], round_folder: str, benchmark: str, key: str
) -> list[Problem]:
    """MLR060 for each closed log of a result set that evaluates too rarely."""
    out = []
    for result in results:
        batch = next((r.value for r in result.records if r.key == "global_batch_size"), None)
        found = cadence_for(round_folder, benchmark, batch)
        if found is None:
            continue
        cadence, rules = found
        why = judge(positions(result, key, cadence.position), cadence)
        if why:
            schedule = _schedule(cadence)
            message = f"evaluation cadence: {why} ({schedule}; {rules})"
            out.append(codes.EVAL_CADENCE.problem(result.path, message))
    return out


def _schedule(cadence: Cadence) -> str:
    if cadence.at:
        points = ", ".join(f"{x:g}" for x in cadence.at)
        return f"the rules evaluate at {cadence.unit} {points}"
    start = "" if cadence.first is None else f" from {cadence.first:g}"
    last = " (the last two evaluations)" if cadence.last_only else ""
    return f"the rules evaluate every {cadence.every:g} {cadence.unit}{start}{last}"
