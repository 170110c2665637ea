"""Where the official package checker stops with a traceback (MLP044).

The official package checker runs, per benchmark folder, the compliance checker on each
log, the power checks (where a power/ folder is), then (closed division, as the system
description says) the seed and RCP checks.
Several inputs make it raise instead of judging: the whole package then has no verdict,
which is a failure (a run the official tools cannot finish is never a predicted pass).
Each path modelled here was found by running mlperf-logging 4.1.68's package checker on
planted copies of real corpus orgs; docs/differences.md ("Where the official package
checker stops") lists them with their tests (tests/test_package_gate.py).

Compliance step (any division):
- a record without ``value`` or ``metadata`` (its parser indexes both: ``KeyError``);
- a log whose first ``submission_division`` or ``submission_benchmark`` names a rule file
  the round does not ship (``closd``, a retired benchmark: ``FileNotFoundError``), or
  any record of a key whose value names a rule file to load (``params.loads``: v0.6's
  benchmark, closed ResNet's optimizer, HPC closed DeepCAM's scheduler) the round lacks
  (``FileNotFoundError``; a value it cannot lower-case is a failure, not a crash);
- a Stable Diffusion evaluation it cannot group (MLC053: its BEGIN block raises);
- a quality-target record before the record whose value its check reads from the
  checker's state (``params.state_reads``: v0.7 closed BERT's batch size, ``KeyError``);
- a quality-target key (the official ``ATLEAST_ONE_CHECK``) with a value that is not a
  number (``TypeError``), or for Mask R-CNN's nested target not an object, or without the
  BBOX or SEGM it reads next, or with one that is not a number (``TypeError``,
  ``KeyError``).
RCP step (closed division, from v1.0, not minigo):
- logs of one folder declaring different benchmarks or batch sizes (``KeyError: None``);
- a declared benchmark the round does not have (``KeyError``);
- a ``run_stop`` without ``status`` in its metadata (``KeyError: 'status'``);
- an evaluation without the progress field the RCP step reads (``epoch_num``, or
  ``samples_count`` for the LLM and Flux benchmarks: ``KeyError``);
- a successful ``run_stop`` before any evaluation (``UnboundLocalError``).
Power step (a power/ folder beside the results): a node_*/sw_* file whose index is not a
number (``ValueError``), no power/result_N folder for any run (``ValueError``), a
power/result_N that is a file (``NotADirectoryError``).
Layout (MLPerf HPC): a folder in results/<system>/ other than strong/ or weak/ holding
folders (``AssertionError``).
Descriptions (from v1.0): a result system's description missing (``FileNotFoundError``)
or not JSON (``JSONDecodeError``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..problems import Problem
from ..records import ParseResult, Record
from ..results.tree import ResultSet, SystemDescription
from ..rounds import Round
from ..rules.codes import UNAGGREGATABLE, UNREADABLE_RECORD
from . import codes

if TYPE_CHECKING:  # the rule file's sections; the loader is imported where it runs
    from ..rules.loader import Section

# The RCP step reads an evaluation's samples_count for these (mlperf-logging 4.1.68,
# rcp_checker.read_submission_file), epoch_num for the others; Stable Diffusion's own
# aggregation is not modelled.
_SAMPLES_BENCHMARKS = frozenset(
    {
        "llama2_70b_lora", "flux1", "llama31_405b", "llama31_8b", "gpt_oss_20b",
        "deepseekv3_671b", "qwen35_397b_grpo", "dlrmv4",
    }
)  # fmt: skip
_EVALS = ("eval_accuracy", "eval_error")
_STOPS = "the official package checker stops here: "


def result_set_crash(
    rs: ResultSet,
    results: Sequence[ParseResult],
    desc: SystemDescription | None,
    rnd: Round,
    compliance: Iterable[Problem],
) -> list[Problem]:
    """MLP044 where the official package checker raises on this result set (its first
    crash: it stops there), else nothing; nothing for a round that has no official rules
    or package checker (v0.5, HPC v0.7: docs/hpc.md)."""
    if not rnd.has("rules"):
        return []
    problems = list(compliance)
    for result in results:  # log by log, as it checks them
        stop = log_crash(result, rnd, [p for p in problems if p.path == result.path])
        if stop is not None:
            return [stop]
    power = _power_crash(rs)
    if power:
        return power
    closed = desc is not None and desc.get("division") == "closed"  # the official test
    if closed and rnd.applies("seeds_checked") and rs.benchmark != "minigo":
        return _rcp_crash(rs, results, rnd)
    return []


def log_crash(result: ParseResult, rnd: Round, compliance: Iterable[Problem]) -> Problem | None:
    """MLP044 where the official compliance checker raises on this one log (``compliance``:
    its problems from ``check_log``), else None: the package checker and the per-file
    checker alike (tests/test_rounds_6_differential.py holds it to the official one)."""
    if not rnd.has("rules"):
        return None
    compliance = list(compliance)
    unreadable = sorted(p for p in compliance if p.rule == UNREADABLE_RECORD.code)
    if unreadable:
        where = unreadable[0]
        why = "KeyError in its log parser (a record without value or metadata)"
        return _stop(where.path, why, where.line, where.column)
    grouped = sorted(p for p in compliance if p.rule == UNAGGREGATABLE.code)
    if grouped:  # the official BEGIN block that builds aggregated_eval_accuracy raises
        where = grouped[0]
        return _stop(
            where.path,
            f"KeyError or TypeError in its BEGIN block ({where.message})",
            where.line,
            where.column,
        )
    found = (
        _rule_file_crash(result, rnd)
        or _loads_crash(result, rnd)
        or _state_crash(result, rnd)
        or _target_crash(result, rnd)
    )
    return _stop(result.path, *found) if found else None


def layout_crash(root: Path, rnd: Round) -> list[Problem]:
    """MLPerf HPC: the official checker takes every folder in results/<system>/ as a
    scaling folder and asserts that its folders sit in strong/ or weak/ (an
    ``AssertionError`` for results/<system>/pruned/old/). Only listings are read."""
    if not rnd.is_hpc:
        return []
    for system in _folders(root / "results"):
        for scaling in _folders(system):
            if scaling.name not in ("strong", "weak") and _folders(scaling):
                why = (
                    f"AssertionError: its HPC walk takes {scaling.name}/ as a scaling folder "
                    "and asserts that the folders in it sit in strong/ or weak/"
                )
                return [_stop(str(scaling), why)]
    return []


def description_crash(problems: Iterable[Problem], rnd: Round) -> list[Problem]:
    """The official package checker opens each result system's description with
    ``json.load`` from the round it reads them (``system_description_checked``): a missing
    one raises ``FileNotFoundError``, one that is not JSON ``JSONDecodeError`` (checked on
    copies of v5.0 GigaComputing). The first of them, as MLP044 with the crash's wording."""
    if not rnd.applies("system_description_checked"):
        return []
    for problem in sorted(problems):
        if problem.rule == codes.MISSING_SYSDESC.code:
            why = f"FileNotFoundError: {problem.message}"
            return [_stop(problem.path, why)]
        if problem.rule == codes.INVALID_JSON.code:
            # json raises JSONDecodeError, or ValueError for an integer of more digits
            # than Python converts: a ValueError either way (JSONDecodeError is one)
            why = f"ValueError (json) reading the system description: {problem.message}"
            return [_stop(problem.path, why, problem.line, problem.column)]
    return []


def _folders(path: Path) -> list[Path]:
    """The folders in ``path`` (links to folders too, as os.path.isdir sees them), sorted."""
    try:
        return sorted(p for p in path.iterdir() if p.is_dir())
    except OSError:
        return []


def _power_crash(rs: ResultSet) -> list[Problem]:
    """Its power step (a power/ folder beside the results, any division): a node_* or
    sw_* file whose index is not a number, a power/result_N that is not a folder, or no
    power/result_N folder for any run. Links are not followed (MLP007 reports those that
    leave the tree)."""
    if rs.power is None or rs.power.is_symlink():
        return []
    found = False
    for log in rs.files:
        folder = rs.power / log.stem
        if folder.is_symlink() or not folder.exists():
            continue
        if not folder.is_dir():
            why = f"NotADirectoryError in its power step (power/{log.stem} is a file)"
            return [_stop(str(folder), why)]
        found = True
        for name in sorted(_names(folder)):
            if not name.startswith(("node", "sw")):
                continue
            index = os.path.splitext(name)[0].split("_")[-1]  # as the official checker splits
            try:
                int(index)
            except ValueError:
                why = f"ValueError in its power step ({name}: {index!r} is not a node index)"
                return [_stop(str(folder / name), why)]
    if rs.files and not found:
        why = "ValueError in its power step (max() of nothing: no power/result_N folder of a run)"
        return [_stop(str(rs.power), why)]
    return []


def _names(folder: Path) -> list[str]:
    try:
        return [p.name for p in folder.iterdir()]
    except OSError:
        return []


def _stop(path: str, why: str, line: int = 0, column: int = 0) -> Problem:
    return codes.OFFICIAL_CRASH.problem(path, _STOPS + why, line, column)


def _first(records: Iterable[Record], key: str) -> Record | None:
    return next((r for r in records if r.key == key), None)


def _sections(rnd: Round) -> dict[str, Section]:
    from ..rules.loader import load_ruleset

    return load_ruleset(rnd).sections


def _rule_file_crash(result: ParseResult, rnd: Round) -> tuple[str, int, int] | None:
    """The rule file the official checker enqueues for the log's first division and
    benchmark (a POST step, whatever its CHECK said), when the round does not ship it."""
    sections = _sections(rnd)
    if "closed" not in sections:  # v0.6's rules are not chained by division
        return None
    division = _first(result.records, "submission_division")
    if division is None:
        return None
    if division.value not in ("closed", "open"):
        why = (
            f"FileNotFoundError: submission_division {division.value!r} makes it load "
            f"{division.value}_common.yaml, which does not exist"
        )
        return why, division.line, division.column
    benchmark = _first(result.records, "submission_benchmark")
    if benchmark is None or f"{division.value}_{benchmark.value}" in sections:
        return None
    why = (
        f"FileNotFoundError: submission_benchmark {benchmark.value!r} makes it load "
        f"{division.value}_{benchmark.value}.yaml, which {rnd.version} does not ship"
    )
    return why, benchmark.line, benchmark.column


def _loads_crash(result: ParseResult, rnd: Round) -> tuple[str, int, int] | None:
    """A rule file an official file loads by a logged value (``params.loads``: v0.6's
    benchmark, closed ResNet's optimizer, HPC closed DeepCAM's scheduler), for every
    record of the key, when the round does not ship it."""
    from ..rules.engine import chain
    from ..rules.loader import load_ruleset

    ruleset = load_ruleset(rnd)
    loads = ruleset.params.get("loads") or []
    if not loads:
        return None
    applied = {s.name for s in chain(ruleset, result.records)}
    for load in loads:
        if load["section"] not in applied:
            continue
        for rec in result.records:
            if rec.key != load["key"]:
                continue
            if load.get("lower") and not isinstance(rec.value, str):
                continue  # its POST raises inside the checker's guard: a failure, no load
            value = rec.value.lower() if load.get("lower") else rec.value
            name = f"{load['prefix']}{value}"
            if name not in ruleset.sections:
                why = (
                    f"FileNotFoundError: {rec.key} {rec.value!r} makes it load {name}.yaml, "
                    f"which {rnd.version} does not ship"
                )
                return why, rec.line, rec.column
    return None


def _state_crash(result: ParseResult, rnd: Round) -> tuple[str, int, int] | None:
    """A quality check that reads another key's value from the checker's state
    (``params.state_reads``: v0.7 closed BERT's target by batch size), on a record logged
    before any record of that key: ``KeyError``, outside the checker's guard."""
    from ..rules.engine import chain
    from ..rules.loader import load_ruleset

    ruleset = load_ruleset(rnd)
    reads = ruleset.params.get("state_reads") or []
    applied = {s.name for s in chain(ruleset, result.records)} if reads else set()
    for read in reads:
        if read["section"] not in applied:
            continue
        for rec in result.records:
            if rec.key == read["needs"]:
                break
            if rec.key == read["key"]:
                needs = read["needs"]
                why = f"KeyError: {needs!r} (its {rec.key} check reads it; none logged before)"
                return why, rec.line, rec.column
    return None


def _target_crash(result: ParseResult, rnd: Round) -> tuple[str, int, int] | None:
    """A quality-target key whose value the official check (ATLEAST_ONE_CHECK, evaluated
    on every record of the key, outside its try) cannot compare: a number target's value
    not a number, or a nested target's (Mask R-CNN ``v['value']['BBOX'] >= 0.377 and ...
    ['SEGM'] ...``) not an object, or a field it reads missing or not a number."""
    division = _first(result.records, "submission_division")
    benchmark = _first(result.records, "submission_benchmark")
    if division is None or benchmark is None:
        return None
    sections = _sections(rnd)
    chain = ["common", str(division.value), f"{division.value}_{benchmark.value}"]
    targets = {
        key: spec.target.schema
        for name in chain
        if name in sections
        for key, spec in sections[name].keys.items()
        if spec.target is not None and spec.target.schema.get("type") in ("number", "object")
    }
    for rec in result.records:
        target = targets.get(rec.key)
        why = None if target is None else _uncomparable(rec.value, target)
        if why:
            return f"{why} in its compliance step: {rec.key} is {rec.value!r}", rec.line, rec.column
    return None


_BOUNDS = {
    "minimum": lambda v, b: v >= b,
    "exclusiveMinimum": lambda v, b: v > b,
    "maximum": lambda v, b: v <= b,
    "exclusiveMaximum": lambda v, b: v < b,
}


def _uncomparable(value: Any, target: dict[str, Any]) -> str | None:
    """The exception its quality check raises on ``value``, or None. Python compares a
    boolean as a number; ``and`` stops at a field out of its bounds, so the fields after
    it are not read."""
    if target.get("type") == "number":
        return None if isinstance(value, int | float) else "TypeError (compared as a number)"
    if not isinstance(value, dict):
        return "TypeError (indexed by field name)"
    for name in target.get("required", []):
        if name not in value:
            return f"KeyError: {name!r}"
        field = value[name]
        if not isinstance(field, int | float):
            return f"TypeError ({name} compared as a number)"
        bounds = target.get("properties", {}).get(name, {})
        if not all(test(field, bounds[k]) for k, test in _BOUNDS.items() if k in bounds):
            return None
    return None


def _rcp_crash(rs: ResultSet, results: Sequence[ParseResult], rnd: Round) -> list[Problem]:
    declared = [_last_value(r.records, "submission_benchmark") for r in results]
    batches = [_last_value(r.records, "global_batch_size", -1) for r in results]
    for result, name in zip(results, declared, strict=True):  # it reads every log first
        found = _read_crash(result.records, name)
        if found:
            return [_stop(result.path, *found)]
    folder = str(rs.folder)
    if len({repr(d) for d in declared}) > 1:
        named = ", ".join(sorted({repr(d) for d in declared}))
        why = f"KeyError: None in its RCP step (the logs declare different benchmarks: {named})"
        return [_stop(folder, why)]
    if len({repr(b) for b in batches}) > 1:
        shown = ", ".join(sorted({"none" if b == -1 else repr(b) for b in batches}))
        why = f"KeyError: None in its RCP step (the logs log different global_batch_size: {shown})"
        return [_stop(folder, why)]
    name = declared[0] if declared else None
    if not isinstance(name, str) or rnd.benchmark(name) is None:
        why = f"KeyError: {name!r} in its RCP step (the logs declare no benchmark of {rnd.version})"
        return [_stop(folder, why)]
    return []


def _last_value(records: Sequence[Record], key: str, default: Any = None) -> Any:
    value = default
    for rec in records:
        if rec.key == key:
            value = rec.value
    return value


def _read_crash(records: Sequence[Record], benchmark: Any) -> tuple[str, int, int] | None:
    """How the RCP step's reading of one log raises (read_submission_file)."""
    if benchmark == "stable_diffusion":
        return None  # its FID/CLIP aggregation is not modelled
    field = "samples_count" if benchmark in _SAMPLES_BENCHMARKS else "epoch_num"
    evaluated = False
    for rec in records:
        metadata = rec.metadata if isinstance(rec.metadata, dict) else {}
        if rec.key in _EVALS:
            if field not in metadata:
                why = f"KeyError: {field!r} in its RCP step ({rec.key} without {field})"
                return why, rec.line, rec.column
            evaluated = True
        elif rec.key == "run_stop":
            status = metadata.get("status", _MISSING)
            if status is _MISSING:
                why = "KeyError: 'status' in its RCP step (run_stop without status)"
                return why, rec.line, rec.column
            if status == "success" and not evaluated:
                why = "UnboundLocalError in its RCP step (a successful run_stop before any eval)"
                return why, rec.line, rec.column
    return None


_MISSING = object()
