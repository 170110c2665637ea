"""The official results tables: what ``result_summarizer --csv OUT.csv`` writes.

One row per system folder of each org (``results/<system>/``, MLPerf HPC:
``results/<system>/strong|weak/``) whose description reads: the description's columns,
then per benchmark column of the round (``Round.summary_columns``, the official
order) the score, then the links MLCommons publishes. Four tables, as the official
tool builds them (docs/scores.md, "The official results tables"):

- ``strong``: minutes per benchmark (the olympic mean with scaling.json, ``score``'s);
- ``weak`` (HPC): ``<benchmark>:number_of_models``, ``:instance_scale``,
  ``:time_to_train_all`` (``results.weak``);
- ``detailed``: per benchmark time to train, energy, GBS, samples to converge, RCP
  verdict and the scaling.json factor (closed division: GBS, samples and RCP);
- ``power`` (HPC, systems with weak-scaling folders): the weak columns' energy.

Scores come from ``compute_scores`` (the project's scoring, RCP and energy); this
module only lays them out. Rows are sorted on every column, as the official tool sorts
them. Nothing is written here (``cli/summarize.py`` writes the files).
"""

from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..inputs import InputError, read_in_tree
from ..problems import Problem
from ..rounds import Round, RoundError, Setting, choose, parse_round
from ..syntax_codes import INPUT_ERROR
from .runs import Run
from .scores import Score, ScoreReport, compute_scores
from .tree import COUNT_MAX, read_system
from .weak import WeakScore

if TYPE_CHECKING:
    from ..datafiles import Document

# A cell of the tables: text, a number, or None (no value).
Cell = str | float | int | None
# A row: column -> cell (the benchmark columns are the round's, so the keys vary).
SummaryRow = dict[str, Cell]


SPEC_COLUMNS = (
    "division",
    "availability",
    "submitter",
    "system",
    "number_of_nodes",
    "host_processor_model_name",
    "host_processors_count",
    "accelerator_model_name",
    "accelerators_count",
    "framework",
    "notes",
    "private_id",
)
URL_COLUMNS = ("details_url", "code_url")
WEAK_METRICS = ("number_of_models", "instance_scale", "time_to_train_all")
DETAILED_METRICS: tuple[str, ...] = (
    "time_to_train",
    "Energy",
    "GBS",
    "samples_to_converge",
    "RCP",
    "rcp_scaling_factor",
)
# Text columns of the detailed table: empty, never null, when there is no value.
_TEXT_METRICS = ("RCP",)
# The official summarizer's words for an RCP verdict other than Pass (its message
# mapping): ours name more cases, which it files under one word.
_RCP_WORDS = {"Pass": "Pass", "Fail": "Fail", "Interp. Fail": "Interp. Fail", "Missing": "Missing"}


@dataclass(frozen=True)
class SummaryTable:
    columns: tuple[str, ...]
    rows: list[SummaryRow]


@dataclass
class Summary:
    """The tables of one round's orgs; ``weak`` and ``power`` are None for Training."""

    round: Round
    strong: SummaryTable
    detailed: SummaryTable
    weak: SummaryTable | None = None
    power: SummaryTable | None = None
    problems: list[Problem] = field(default_factory=list)
    scores: ScoreReport = field(default_factory=ScoreReport)


class SummaryError(UsageError, ValueError):
    """The orgs cannot be summarized together (no round, or several rounds)."""


def summarize(orgs: list[str], ruleset: str = "auto", setting: Setting | None = None) -> Summary:
    """The official tables of ``orgs`` (org folders of one round)."""
    report = ScoreReport()
    for org in orgs:
        found = compute_scores([str(Path(org) / "results")], ruleset, setting)
        report.scores += found.scores
        report.weak += found.weak
        report.runs += found.runs
        report.problems += found.problems
        report.not_scored += found.not_scored
    rnd = _round(report, orgs, ruleset, setting)
    summary = Summary(
        rnd,
        SummaryTable(_columns(rnd, None), []),
        SummaryTable(_columns(rnd, DETAILED_METRICS), []),
        SummaryTable(_columns(rnd, WEAK_METRICS), []) if rnd.is_hpc else None,
        SummaryTable(_columns(rnd, WEAK_METRICS), []) if rnd.is_hpc else None,
        problems=report.problems,
        scores=report,
    )
    strong = {_key(s.folder): s for s in report.scores}
    weak = {_key(w.folder): w for w in report.weak}
    runs: dict[str, list[Run]] = {}
    for run in report.runs:
        runs.setdefault(_key(str(Path(run.path).parent)), []).append(run)
    for org in orgs:
        _org_rows(Path(org), rnd, (strong, runs), weak, summary)
    for table in (summary.strong, summary.detailed, summary.weak, summary.power):
        if table is not None:
            _sort(table)
    return summary


def _round(report: ScoreReport, orgs: list[str], ruleset: str, setting: Setting | None) -> Round:
    """The round of the results; without any, the one the flag, the project setting or
    the orgs' round folder names (``rounds.choose``): an org with no result file still
    has its rows."""
    versions = {s.ruleset for s in report.scores} | {w.ruleset for w in report.weak}
    if len(versions) > 1:
        raise SummaryError(f"the orgs are of several rounds: {', '.join(sorted(versions))}")
    try:
        if versions:
            return parse_round(versions.pop())
        named = {choose(org, (), ruleset, setting, is_folder=True).ruleset for org in orgs}
        if len(named) == 1:
            return parse_round(named.pop())
    except RoundError as err:
        raise SummaryError(f"no result to summarize: {err}") from None
    raise SummaryError(f"the orgs are of several rounds: {', '.join(sorted(named))}")


def _columns(rnd: Round, metrics: tuple[str, ...] | None) -> tuple[str, ...]:
    if metrics is None:
        middle = rnd.summary_columns
    else:
        middle = tuple(f"{b}:{m}" for b in rnd.summary_columns for m in metrics)
    return (*SPEC_COLUMNS, *middle, *URL_COLUMNS)


def _key(folder: str) -> str:
    return str(Path(folder).resolve())


def _org_rows(
    org: Path,
    rnd: Round,
    strong: tuple[dict[str, Score], dict[str, list[Run]]],
    weak: dict[str, WeakScore],
    summary: Summary,
) -> None:
    """The org's rows: one per system folder whose description has the columns."""
    for system_dir in _folders(org / "results"):
        specs = _specs(org, system_dir, rnd, summary.problems)
        if specs is None:
            continue
        urls = _urls(rnd, str(specs["submitter"]), system_dir.name)
        parent = system_dir / "strong" if rnd.is_hpc else system_dir
        if parent.is_dir():
            scores, details = _strong_cells(
                rnd, str(specs["division"]), parent, strong, summary.problems
            )
            summary.strong.rows.append({**specs, **scores, **urls})
            summary.detailed.rows.append({**specs, **details, **urls})
        if rnd.is_hpc and (system_dir / "weak").is_dir():
            assert summary.weak is not None and summary.power is not None
            cells = _weak_cells(rnd, system_dir / "weak", weak, summary.problems)
            summary.weak.rows.append({**specs, **cells, **urls})
            # Energy of weak-scaling models is not computed (docs/differences.md).
            summary.power.rows.append({**specs, **urls})


def _folders(parent: Path) -> list[Path]:
    """Sub-folders by name (links leaving the tree are not followed: docs/security.md)."""
    if not parent.is_dir():
        return []
    return sorted(
        (p for p in parent.iterdir() if p.is_dir() and not p.is_symlink()),
        key=lambda p: p.name,
    )


def _specs(org: Path, system_dir: Path, rnd: Round, problems: list[Problem]) -> SummaryRow | None:
    """The description's columns as the official tool writes them; None (with the
    problem) when the description cannot be read or lacks a column's field."""
    path = org / "systems" / f"{system_dir.name}.json"
    desc = read_system(path, org)
    if desc.data is None:
        why = "missing" if not path.exists() else "unreadable"
        problems.append(_skipped(path, f"system description {why}"))
        return None
    data = desc.data
    missing = [k for k in _NEEDED if k not in data]
    if missing:
        problems.append(_skipped(path, f"no {', '.join(missing)} field"))
        return None
    try:
        per_host, per_acc, nodes = (
            _count(data[k])
            for k in ("host_processors_per_node", "accelerators_per_node", "number_of_nodes")
        )
        hosts, accelerators = per_host * nodes, per_acc * nodes
    except (TypeError, ValueError, OverflowError):
        problems.append(_skipped(path, "a per-node count or number_of_nodes is not a number"))
        return None
    notes = ";".join(str(data[k]) for k in ("hw_notes", "sw_notes") if data[k])
    return {
        "division": str(data["division"]),
        "availability": str(data["status"]),
        "submitter": str(data["submitter"]),
        "system": _system_name(data),
        "number_of_nodes": str(data["number_of_nodes"]),
        "host_processor_model_name": str(data["host_processor_model_name"]),
        "host_processors_count": hosts,
        "accelerator_model_name": _accelerator(data),
        "accelerators_count": accelerators,
        "framework": _framework(data),
        "notes": notes,
        "private_id": _private_id(org, system_dir),
    }


# The description fields the official tool reads for the columns (it stops on a
# missing one: docs/differences.md).
_NEEDED = (
    "division",
    "status",
    "submitter",
    "system_name",
    "host_processor_model_name",
    "number_of_nodes",
    "host_processor_core_count",
    "host_processors_per_node",
    "accelerator_model_name",
    "accelerators_per_node",
    "framework",
    "hw_notes",
    "sw_notes",
)


def _count(value: Any) -> int:
    """A count as the official summarizer reads it (``int``), in [0, COUNT_MAX]; else
    ValueError (1e308 made an integer no table writer takes)."""
    number = int(value)
    if not 0 <= number <= COUNT_MAX:
        raise ValueError(f"{number} is not a count")
    return number


def _skipped(path: Path, why: str) -> Problem:
    return INPUT_ERROR.problem(str(path), f"{why}: no row in the results tables")


def _unknown(folder: Path, rnd: Round) -> Problem:
    """A folder no column of the round's tables names (the official tool stops there)."""
    columns = ", ".join(rnd.summary_columns)
    why = f"not a benchmark column of round {rnd.version} ({columns}): not in the tables"
    return INPUT_ERROR.problem(str(folder), why)


def _system_name(data: Document) -> str:
    """TPU v3 systems are named by their chip count (the official table's names)."""
    name = str(data["system_name"])
    if name == "tpu-v3":
        return f"TPUv3.{_int(data['accelerators_per_node']) * 2}"
    return name


def _accelerator(data: Document) -> str:
    name = str(data["accelerator_model_name"])
    return "TPUv3" if name == "tpu-v3" else name


def _framework(data: Document) -> str:
    """TensorFlow frameworks lose their " commit hash = ..." suffix."""
    framework = str(data["framework"])
    if "TensorFlow" in framework:
        found = re.search(r" commit hash = .*", framework)
        if found:
            return framework.replace(found.group(0), "")
    return framework


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0


def _private_id(org: Path, system_dir: Path) -> str:
    """results/<system>/privateid.json's ``private_id`` (MLCommons' anonymous IDs), read
    in the tree only; empty without one. Never written (the official tool writes it)."""
    path = system_dir / "privateid.json"
    if not path.exists():
        return ""
    try:
        data = json.loads(read_in_tree(path, org))
    except (InputError, ValueError, RecursionError):
        return ""
    value = data.get("private_id", "") if isinstance(data, dict) else ""
    return str(value)


def _urls(rnd: Round, submitter: str, system: str) -> dict[str, str]:
    """The links of the published table: the description and the org's code."""
    usage = "hpc" if rnd.is_hpc else "training"
    prefix = f"https://github.com/mlcommons/{usage}_results_v{rnd.short}"
    return {
        "details_url": f"{prefix}/blob/main/{submitter}/systems/{system}.json",
        "code_url": f"{prefix}/blob/master/{submitter}/benchmarks",
    }


def _benchmark_folders(parent: Path, rnd: Round, problems: list[Problem]) -> list[tuple[Path, str]]:
    """(folder, column) of each benchmark folder; a folder no column names is a problem."""
    found = []
    for folder in _folders(parent):
        bench = "maskrcnn" if folder.name == "mask" else folder.name
        if bench in rnd.summary_columns:
            found.append((folder, bench))
        else:
            problems.append(_unknown(folder, rnd))
    return found


def _strong_cells(
    rnd: Round,
    division: str,
    parent: Path,
    found: tuple[dict[str, Score], dict[str, list[Run]]],
    problems: list[Problem],
) -> tuple[SummaryRow, SummaryRow]:
    """(benchmark -> minutes, benchmark:metric -> value) of one system's folders."""
    scores, runs = found
    minutes: SummaryRow = {}
    details: SummaryRow = {f"{b}:{m}": "" for b in rnd.summary_columns for m in _TEXT_METRICS}
    for folder, bench in _benchmark_folders(parent, rnd, problems):
        score = scores.get(_key(str(folder)))
        if score is None:
            details[f"{bench}:rcp_scaling_factor"] = _scaling_factor(folder)
            continue
        details[f"{bench}:rcp_scaling_factor"] = score.scaling_factor
        if score.minutes is not None:
            minutes[bench] = score.minutes
            details[f"{bench}:time_to_train"] = score.minutes
        if score.energy_j is not None and score.minutes is not None:
            details[f"{bench}:Energy"] = score.energy_j
        if division == "closed":
            details.update(_closed_cells(bench, score, runs.get(_key(str(folder)), [])))
    return minutes, details


def _scaling_factor(folder: Path) -> float:
    """A folder without a score: its scaling.json factor, 1.0 without one."""
    path = folder / "scaling.json"
    if not path.is_file():
        return 1.0
    try:
        return float(json.loads(read_in_tree(path, folder))["scaling_factor"])
    except (InputError, ValueError, KeyError, TypeError, RecursionError):
        return 1.0


def _closed_cells(bench: str, score: Score, runs: list[Run]) -> SummaryRow:
    """GBS, samples to converge and the RCP verdict, as the closed division has them.
    Runs disagreeing on the batch size leave all three empty (the official RCP step
    stops there); runs logging none have GBS -1."""
    batches = {r.global_batch_size for r in runs}
    if len(batches) > 1:
        return {}
    batch = batches.pop() if batches else None
    epochs = [r.epochs_or_samples if r.succeeded else None for r in runs]
    samples = samples_to_converge(epochs, 4 if bench == "unet3d" else 1)
    cells: SummaryRow = {
        f"{bench}:RCP": rcp_word(score.rcp_verdict),
        f"{bench}:GBS": -1.0 if batch is None else float(batch),
    }
    if samples is not None:
        cells[f"{bench}:samples_to_converge"] = samples
    return cells


def _weak_cells(
    rnd: Round, parent: Path, scores: dict[str, WeakScore], problems: list[Problem]
) -> SummaryRow:
    cells: SummaryRow = {}
    for folder, bench in _benchmark_folders(parent, rnd, problems):
        score = scores.get(_key(str(folder)))
        if score is None or not score.valid or score.minutes is None:
            continue
        cells[f"{bench}:number_of_models"] = float(score.models)
        cells[f"{bench}:instance_scale"] = _float(score.instance_scale)
        cells[f"{bench}:time_to_train_all"] = score.minutes
    return cells


def _float(value: int | None) -> float | None:
    return None if value is None else float(value)


def rcp_word(verdict: str | None) -> str:
    """Our RCP verdict in the official table's words ("" when not checked)."""
    if verdict is None:
        return ""
    return _RCP_WORDS.get(verdict, "Unknown state")


# The official table's stand-in for a run that did not converge (its samples_to_converge
# column); the RCP check itself uses no number for one (results/rcp.py).
NOT_CONVERGED = 1e9


def samples_to_converge(epochs: list[float | None], failed_allowed: int) -> float | None:
    """The mean epochs (samples) to converge without the fastest and slowest run, as the
    official table has it: a run that did not stop with success counts as 1e9; more
    failed runs than ``failed_allowed``, or fewer than 3 runs, give none."""
    failed = sum(1 for e in epochs if e is None)
    if failed > failed_allowed or len(epochs) < 3:
        return None
    ordered = sorted(NOT_CONVERGED if e is None else e for e in epochs)
    return statistics.fmean(ordered[1:-1])


def _sort(table: SummaryTable) -> None:
    table.rows.sort(key=lambda row: _order(row, table.columns))


def _order(row: SummaryRow, columns: tuple[str, ...]) -> tuple[Any, ...]:
    """Every column in turn, missing numbers last (the official tool's sort)."""
    key: list[Any] = []
    for column in columns:
        value = row.get(column)
        if isinstance(value, str):
            key.append((0, value))
        elif value is None or (isinstance(value, float) and math.isnan(value)):
            key.append((2, 0))
        else:
            key.append((1, value))
    return tuple(key)


def table_row(table: SummaryTable, row: SummaryRow) -> list[Cell]:
    """A row's cells in column order: missing metrics are empty (None), text ones ""."""
    return [row.get(c, "" if c.endswith(tuple(f":{m}" for m in _TEXT_METRICS)) else None)
            for c in table.columns]  # fmt: skip
