"""Evaluation cadence (MLR060 ``eval-cadence``, a warning beyond the official tools):
whether a closed run evaluates as often as its round's training rules require.

The schedules are data (``schemas/cadence/eval_cadence.yaml``: per round the "Evaluation
frequency" table of training_rules.adoc, section "Quality measure"; a round states what
changed from the round it ``extends``). A run's evaluations are the quality records
before its first ``run_stop``, placed by a metadata count (``epoch_num`` unless the
schedule names another) and compared in the schedule's unit whatever unit the log counts
(U-Net3D logs count epochs or samples); they must start no later than the schedule's first
point and never be further apart than its interval (evaluating more often is allowed). A
run is judged by its own round: one that started before the previous round's results
were published is that round's run, re-published. One problem per log, naming the gap
found and the one required (docs/scores.md, "Evaluation cadence").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import cache

from ..rules.schema import finite_number
from ..values import Value

TYPE_CHECKING = False  # typing is not imported at run time: check judges one log with it
if TYPE_CHECKING:
    from typing import Any

    from ..datafiles import Document
    from ..problems import Problem
    from ..records import ParseResult

SLACK = 1e-6  # epoch_num logged as a float (ResNet 4.0, DLRM 1.0499947)


class Cadence(Value):
    """One benchmark's schedule with its batch-dependent amounts resolved."""

    __slots__ = (
        "unit",
        "every",
        "first",
        "at",
        "slack",
        "position",
        "last_only",
        "epoch_size",
        "epoch_bound",
        "batch",
    )

    def __init__(
        self,
        unit: str,  # "epochs" or "samples"
        every: float | None,  # None: fixed points (``at``)
        first: float | None,  # None: the rules name no start
        at: tuple[float, ...] = (),
        slack: float = 0.0,  # the samples of a step where a point may be rounded up to it
        position: str = "epoch_num",  # the metadata count that places an evaluation
        last_only: bool = False,  # only the last two evaluations must be one interval apart
        epoch_size: float = 0.0,  # samples per epoch where a log may count epochs (U-Net3D)
        epoch_bound: float = 0.0,  # the most epochs such a log can count (else samples)
        batch: float = 0.0,  # one global batch in the unit (0: epochs, no grid to stop on)
    ) -> None:
        self.unit = unit
        self.every = every
        self.first = first
        self.at = at
        self.slack = slack
        self.position = position
        self.last_only = last_only
        self.epoch_size = epoch_size
        self.epoch_bound = epoch_bound
        self.batch = batch

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
    """Each round's whole schedule table, its ``extends`` chain resolved: the prepared
    copy when current (mllog_check.prepared: no YAML, no validation at run time)."""
    prepared = _prepared()
    if isinstance(prepared, dict) and isinstance(prepared.get("rounds"), dict):
        return prepared["rounds"]
    return resolve_table()


@cache
def _prepared() -> Any:
    """The prepared schedules and quality keys, None when stale (read once)."""
    from ..prepared import read

    return read(PREPARED)


PREPARED = "cadence"  # schemas/prepared/cadence.json
SOURCE = "cadence/eval_cadence.yaml"


def resolve_table() -> Document:
    """The schedule tables from the YAML file, validated and resolved (what
    scripts/prepare_data.py writes to schemas/prepared/cadence.json)."""
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
    epoch_size = epoch_bound = 0.0
    epochs_in = spec.get("epochs_in")
    if epochs_in is not None and gbs:  # samples_per_epoch: the last batch padded
        dataset = epochs_in["dataset"]
        epoch_size = float(math.ceil(dataset / gbs) * gbs)
        epoch_bound = float(math.ceil(epochs_in["within_passes"] * dataset / epoch_size))
    unit = spec["unit"]
    scale = spec["every"].get("scale", 1) if isinstance(spec.get("every"), dict) else 1
    batch = {"samples": gbs or 0.0, "tokens": (gbs or 0.0) * scale, "steps": 1.0}.get(unit, 0)
    cadence = Cadence(
        unit,
        every,
        first,
        at,
        slack,
        spec.get("position", "epoch_num"),
        bool(spec.get("last_only", False)),
        epoch_size,
        epoch_bound,
        float(batch),
    )
    rules = " ".join(entry["rules"].split()).replace("{round}", round_folder)
    return cadence, rules


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


def placed(result: ParseResult, key: str, cadence: Cadence) -> tuple[list[float], str]:
    """Where a run evaluated in the schedule's unit, and how the log's count was read
    ('' when as logged): a U-Net3D log counting epochs (every evaluation within the
    epochs a run may take) in samples; an epoch-counted log that numbers epochs from 1
    and logs each evaluation inside the epoch it numbers, after the epoch before it
    (v0.7 Fujitsu and Inspur SSD: ``epoch_num`` 41 at iteration 4,886, 40 epochs)."""
    places = positions(result, key, cadence.position)
    size = cadence.epoch_size
    if size and places and places[-1] <= cadence.epoch_bound:
        return [p * size for p in places], f"epoch_num counts epochs of {size:g} samples"
    if cadence.unit == "epochs" and cadence.position == "epoch_num" and _inside(result, key):
        return [p - 1 for p in places], "each evaluation logged inside the epoch it numbers"
    return places, ""


def _inside(result: ParseResult, key: str) -> bool:
    """Epochs numbered from 1 and every evaluation logged between the ``epoch_start`` and
    ``epoch_stop`` of the epoch its ``epoch_num`` names ("Epochs should always be
    numbered from 1", training_rules.adoc v0.7 and v1.0, "Epoch numbering")."""
    first, current, evaluations = None, None, 0
    for rec in result.records:
        if rec.key == "run_stop":
            break
        number = rec.epoch_num()
        if rec.key == "epoch_start":
            first = number if first is None else first
            current = number
        elif rec.key == "epoch_stop" and number == current:
            current = None
        elif rec.key == key and finite_number(number) is not None:
            if current is None or number != current or isinstance(number, bool):
                return False
            evaluations += 1
    return evaluations > 0 and first == 1 and not isinstance(first, bool)


def own_round(result: ParseResult, round_folder: str, benchmark: str) -> tuple[str, str]:
    """The round whose rules a run followed and why ('' when its folder's): a run that
    started before the previous round's results were published is that round's run,
    re-published (v5.1 Nebius Llama 3.1 405B: v5.0 runs of April 2025). One round back
    only, where that round states the benchmark's schedule, and only a run dated after
    the results of the round before that (a clock at 1970 dates nothing)."""
    names = list(_table())
    index = names.index(round_folder) if round_folder in names else 0
    if index == 0:
        return round_folder, ""
    before = names[index - 1]
    if benchmark not in _table()[before]["benchmarks"]:
        return round_folder, ""
    start = next((r.timestamp_ms for r in result.records if r.key == "run_start"), None)
    published = _published_ms(before)
    earliest = _published_ms(names[index - 2]) if index >= 2 else None
    ms = finite_number(start)
    if ms is None or published is None or not (earliest or 0) <= ms < published:
        return round_folder, ""
    from datetime import UTC, datetime  # a re-published run only

    day = datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()
    return before, f"a run of {day}, before {before}'s results were published"


@cache
def _published_ms(folder: str) -> float | None:
    """A schedule table round's publication (time_ms), looked up once per process (the
    package checker looks its round up once: tests/test_package.py)."""
    from ..rounds import parse_round

    return parse_round(folder).published_ms


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


def off_grid(places: Sequence[float], cadence: Cadence) -> str:
    """What is wrong with a converged run that evaluates more often than required and
    stops at an evaluation the required schedule does not have ('' when nothing): it
    may have stopped earlier than the schedule lets a run (training_rules.adoc v1.0 on:
    "at the same frequency"; v5.1 HPE XD670 Llama 3.1 8B at batch 32, every 8,192
    samples where 12,288 is required). A point is met within one global batch either
    way (rounded up to a batch; some logs count the samples before the last step)."""
    every, first, batch = cadence.every, cadence.first, cadence.batch
    if every is None or first is None or cadence.last_only or not batch or len(places) < 2:
        return ""
    near = batch + cadence.slack + SLACK
    finest = min(b - a for a, b in itertools.pairwise(places))
    if finest >= every - near:
        return ""
    last = places[-1]
    below = first + max(0, math.floor((last - first) / every)) * every
    if min(abs(last - below), abs(below + every - last)) <= near:
        return ""
    return (
        f"the run stops at {_at(cadence.unit, last)}, which the required schedule does not "
        f"evaluate (its points {below:g} and {below + every:g}), evaluating {finest:g} "
        f"{cadence.unit} apart where every {every:g} is required"
    )


def _at(unit: str, value: float) -> str:
    return f"{unit[:-1]} {value:g}"  # "epoch 4", "sample 150000", "token ...", "step ..."


def cadence_problems(
    results: Sequence[ParseResult], round_folder: str, benchmark: str, key: str
) -> list[Problem]:
    """MLR060 for each closed log of a result set that evaluates too rarely."""
    out: list[Problem] = []
    for result in results:
        batch = next((r.value for r in result.records if r.key == "global_batch_size"), None)
        judged_by, dated = own_round(result, round_folder, benchmark)
        found = cadence_for(judged_by, benchmark, batch)
        if found is None:
            continue
        cadence, rules = found
        places, read = placed(result, key, cadence)
        why = judge(places, cadence) or (off_grid(places, cadence) if _converged(result) else "")
        if why:
            notes = "; ".join(x for x in (read, dated, _schedule(cadence), rules) if x)
            message = f"evaluation cadence: {why} ({notes})"
            from .codes import EVAL_CADENCE  # only with a finding: check imports this module

            out.append(EVAL_CADENCE.problem(result.path, message))
    return out


def _converged(result: ParseResult) -> bool:
    """The first run_stop says success (the run stopped where it reached the target)."""
    stop = next((r for r in result.records if r.key == "run_stop"), None)
    status = stop.metadata.get("status") if stop and isinstance(stop.metadata, dict) else None
    return isinstance(status, str) and status.lower() == "success"


def _schedule(cadence: Cadence) -> str:
    if cadence.at:
        points = ", ".join(f"{x:g}" for x in cadence.at)
        return f"the rules evaluate at {cadence.unit} {points}"
    start = "" if cadence.first is None else f" from {cadence.first:g}"
    last = " (the last two evaluations)" if cadence.last_only else ""
    return f"the rules evaluate every {cadence.every:g} {cadence.unit}{start}{last}"


# --- one log (``check``) ------------------------------------------------------------------

# The records one log's cadence reads besides its quality records: ``check`` keeps these
# of a log it streams (docs/design.md, memory), never the whole log.
READS = frozenset(("global_batch_size", "run_start", "run_stop", "epoch_start", "epoch_stop"))


@cache
def quality_keys() -> dict[str, dict[str, str]]:
    """Round folder -> benchmark -> the key of its quality record (the scoring data's
    ``key``), for each benchmark a schedule table names: prepared, else from the scoring
    files."""
    prepared = _prepared()
    if isinstance(prepared, dict) and isinstance(prepared.get("keys"), dict):
        keys: dict[str, dict[str, str]] = prepared["keys"]
        return keys
    return resolve_keys()[0]


def resolve_keys() -> tuple[dict[str, dict[str, str]], list[str]]:
    """``quality_keys`` from the scoring files, and the files read (schemas/ relative)."""
    from ..datafiles import EXTENDS
    from ..rounds import parse_round
    from .scoring import _read, scoring_for

    keys: dict[str, dict[str, str]] = {}
    sources: set[str] = set()
    for folder, entry in resolve_table().items():
        scoring = scoring_for(folder)
        keys[folder] = {}
        for name in entry["benchmarks"]:
            bench = scoring.benchmark(name)
            if bench is not None:
                keys[folder][name] = bench.key
        chain: str | None = folder
        while chain:  # the scoring file and the ones it extends
            rnd = parse_round(chain)
            sources.add(f"scoring/{rnd.folder}.yaml")
            chain = _read(chain).get(EXTENDS)
    return keys, sorted(sources)


def log_problems(
    result: ParseResult, folder: str, benchmark: str | None, division: str | None
) -> list[Problem]:
    """MLR060 of one log where the log alone decides it (``check``): a closed log
    (``division``, as it logs it) of a benchmark whose round, ``folder`` (``v1.0``),
    states a schedule, judged as the package judges each log of its result set.
    ``result`` needs only the records of ``READS`` and of ``needs(...)``'s key."""
    if division != "closed" or not benchmark:
        return []
    found = needs(folder, benchmark)
    if found is None:
        return []
    name, key = found
    return cadence_problems([result], folder, name, key)


def needs(folder: str, benchmark: str) -> tuple[str, str] | None:
    """(the benchmark's name in the schedules, its quality key) when a log of
    ``benchmark`` in round ``folder`` may be judged; None when no schedule can apply."""
    from ..rounds import RoundError, parse_round

    try:
        bench = parse_round(folder).benchmark(benchmark)
    except RoundError:
        return None
    key = None if bench is None else quality_keys().get(folder, {}).get(bench.name)
    if bench is None or key is None:
        return None
    return bench.name, key


def reads() -> frozenset[str]:
    """Every key one log's cadence may read: ``READS`` and the quality keys."""
    return READS | {key for keys in quality_keys().values() for key in keys.values()}
