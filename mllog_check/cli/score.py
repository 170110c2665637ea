"""``mllog-check score``: time to train per benchmark, as the MLCommons results table."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

import click

from ..reporters import tables
from ..reporters.text import write_problems
from ..results.columns import ACROSS_COLUMNS, AcrossRounds
from ..results.filters import ResultFilter
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    chosen_round,
    ruleset_option,
    selection_options,
    selection_or_exit,
    table_format_or_exit,
    usage_option,
    with_usage,
    writable_or_exit,
    write_output_file,
)
from .filter_options import filter_options

if TYPE_CHECKING:
    from ..results.scores import Score, ScoreReport
    from ..results.weak import WeakRow


class Rcp(TypedDict):
    """A score's RCP check in the JSON document (Score's ``rcp_*`` fields)."""

    verdict: str | None
    message: str
    scaling_factor: float | None
    pass_probability: float | None


class ScoreFacts(TypedDict):
    """A score's result in the JSON document: Score's fields, its RCP check nested."""

    org: str
    system: str
    system_name: str | None
    benchmark: str
    division: str | None
    ruleset: str
    minutes: float | None
    valid: bool
    reason: str
    runs_counted: int
    raw_minutes: float | None
    scaling_factor: float
    score_if_normalized: float | None
    rcp: Rcp


class Hardware(TypedDict):
    """What a result ran on, in the JSON document (docs/scores.md, "Hardware columns")."""

    availability: str | None
    accelerator_model: str | None
    accelerators: int | None
    nodes: int | None
    host: str | None
    interconnect: str | None
    accelerator_minutes: float | None


class ScoreJson(ScoreFacts, Hardware, AcrossRounds, total=False):
    """A score in the JSON document: its result, what it ran on, and its energy figures
    (docs/power.md) only where power logs exist, so the shape stays as it was without."""

    energy_j: float | None
    energy_method: str
    avg_power_w: float | None
    energy_per_accelerator_j: float | None
    node_energy_share: float | None
    switch_energy_share: float | None
    perf_per_watt: float | None


class RunFacts(TypedDict):
    """A run in the JSON document: these columns of its row (results.scores.ScoreRun)."""

    path: str
    org: str
    system: str
    benchmark: str
    minutes: float | None
    run_stop_status: str | None
    converged: bool
    epochs_or_samples: float | None
    global_batch_size: int | None
    seeds: list[Any]
    round: str | None
    published: str | None
    benchmark_model: str | None
    republished: bool


class RunJson(RunFacts, total=False):
    """... with its energy where power logs exist, its note where any run has one."""

    energy_j: float | None
    avg_power_w: float | None
    note: str


class JsonDocument(TypedDict):
    """The JSON document of ``score`` (docs/scores.md): scores, runs, and weak scaling
    (MLPerf HPC) and efficiency (power logs) when there are any."""

    scores: list[ScoreJson]
    runs: list[RunJson]
    weak_scaling: NotRequired[list[WeakRow]]
    efficiency: NotRequired[list[Mapping[str, object]]]  # EfficiencyRow's fields


@click.command()
@click.argument("paths", nargs=-1, required=True)
@ruleset_option("Exit 2 without evidence.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tables.offered(tables.SCORE)),
    default="table",
    show_default=True,
)
@usage_option()
@click.option("--runs", "show_runs", is_flag=True, help="One row per run instead of per score.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@selection_options
@filter_options
def score(
    paths: tuple[str, ...],
    ruleset: str,
    fmt: str,
    show_runs: bool,
    output: str | None,
    result_filter: ResultFilter,
    usage: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
) -> None:
    """Score result folders: a results repository, an org, its results/, a system or a
    system/benchmark folder (MLPerf HPC: system/strong|weak/benchmark; weak scaling gets
    its own table). Problems (MLR rules) go to stderr.

    Exit 0 when every score is valid and nothing is wrong, 1 when a score is invalid or
    a problem was found, 2 on usage or input errors.
    """
    from dataclasses import replace

    from ..results import compute_scores
    from ..results.filters import filter_report

    table_format_or_exit("score", fmt, output)
    ruleset = with_usage("score", ruleset, usage)
    setting = chosen_round("score", ruleset)
    shown = selection_or_exit("score", select, ignore, preview)
    writable_or_exit("score", output)
    report = compute_scores(list(paths), ruleset=ruleset, setting=setting)
    found = len(report.scores) + len(report.weak)
    report = filter_report(report, result_filter)
    # The one point where the selection applies: the exit code follows what is shown.
    report = replace(report, problems=shown.apply(report.problems))
    if found and not (report.scores or report.weak):
        click.echo(
            human("error: no result matches the filters ({})", result_filter.describe()), err=True
        )
        write_problems(report.problems, sys.stderr)
        sys.exit(EXIT_USAGE)
    if not report.scores and not report.weak:
        pass  # nothing to write; the exit code and stderr say why
    elif output is not None:
        write_output_file("score", fmt, _tables(report, fmt, show_runs), output)
    else:
        tables.write(fmt, _tables(report, fmt, show_runs), tables.stdout_for(fmt))
    write_problems(report.problems, sys.stderr)
    sys.exit(_exit_code(report))


def _exit_code(report: Any) -> int:
    unread = any(not n.warning for n in report.not_scored)
    if unread or not (report.scores or report.weak):
        if not (report.scores or report.weak):
            click.echo("error: no result_*.txt files found", err=True)
        return EXIT_USAGE
    valid = all(s.valid for s in [*report.scores, *report.weak])
    if any(p.is_error for p in report.problems) or not valid:
        return EXIT_PROBLEMS
    return EXIT_OK


def _tables(report: Any, fmt: str, show_runs: bool) -> list[tables.Table]:
    """What format ``fmt`` writes: the human tables, or the rows of scores or runs."""
    if fmt == "table":
        if show_runs:
            return _runs_table(report)
        strong = _scores_table(report) if report.scores else []
        return [*strong, *_weak_table(report)]
    from ..results.runs import Run
    from ..results.scores import Score, float_columns, run_table, score_table
    from ..results.weak import weak_table

    document = json_document(report)
    if show_runs:
        return [tables.Table(*run_table(report), document=document, floats=float_columns(Run))]
    out = []
    if report.scores:
        floats = float_columns(Score)
        out.append(tables.Table(*score_table(report), document=document, floats=floats))
    # Weak scaling (MLPerf HPC) after the strong block with its own header, as the official
    # summarizer's CSV has it; JSON holds both in one document, Parquet one table.
    if report.weak and not (out and (fmt == "json" or tables.FORMATS[fmt].binary)):
        out.append(tables.Table(*weak_table(report), document=document))
    return out


def json_document(report: ScoreReport) -> JsonDocument:
    """The JSON shape scripts rely on (docs/scores.md)."""
    from ..results.scores import run_row

    scores: list[ScoreJson] = [
        {
            "org": s.org,
            "system": s.system,
            "system_name": s.system_name,
            "benchmark": s.benchmark,
            "division": s.division,
            "ruleset": s.ruleset,
            "minutes": s.minutes,
            "valid": s.valid,
            "reason": s.reason,
            "runs_counted": s.runs_counted,
            "raw_minutes": s.raw_minutes,
            "scaling_factor": s.scaling_factor,
            "score_if_normalized": s.score_if_normalized,
            "rcp": {
                "verdict": s.rcp_verdict,
                "message": s.rcp_message,
                "scaling_factor": s.rcp_scaling_factor,
                "pass_probability": s.rcp_pass_probability,
            },
            **_hardware(s),
            **_across(s),
        }
        for s in report.scores
    ]
    # Energy keys only where power logs exist: the shape stays as it was without them.
    power = any(s.energy_method for s in report.scores)
    if power:
        for row, s in zip(scores, report.scores, strict=True):
            row["energy_j"] = s.energy_j
            row["energy_method"] = s.energy_method
            row["avg_power_w"] = s.avg_power_w
            row["energy_per_accelerator_j"] = s.energy_per_accelerator_j
            row["node_energy_share"] = s.node_energy_share
            row["switch_energy_share"] = s.switch_energy_share
            row["perf_per_watt"] = s.perf_per_watt
    keys = (
        *RunFacts.__annotations__,
        *(("energy_j", "avg_power_w") if power else ()),
        *(("note",) if any(r.note for r in report.runs) else ()),
    )
    rows: list[Mapping[str, object]] = [run_row(r) for r in report.runs]
    runs = [cast(RunJson, {k: row[k] for k in keys}) for row in rows]
    document: JsonDocument = {"scores": scores, "runs": runs}
    if report.weak:  # MLPerf HPC weak scaling (docs/hpc.md); absent otherwise
        from ..results.weak import weak_table

        document["weak_scaling"] = weak_table(report)[1]
    if not power:
        return document
    import dataclasses

    from ..results.efficiency import efficiency_rows

    document["efficiency"] = [dataclasses.asdict(r) for r in efficiency_rows(report.scores)]
    return document


def _hardware(s: Score) -> Hardware:
    """What the result ran on (docs/scores.md, "Hardware columns")."""
    return {
        "availability": s.availability,
        "accelerator_model": s.accelerator_model,
        "accelerators": s.accelerators,
        "nodes": s.nodes,
        "host": s.host,
        "interconnect": s.interconnect,
        "accelerator_minutes": s.accelerator_minutes,
    }


def _across(s: Score) -> AcrossRounds:
    """The columns for reading rounds together (results/columns.py)."""
    return cast(AcrossRounds, {name: getattr(s, name) for name in ACROSS_COLUMNS})


def _scores_table(report: Any) -> list[tables.Table]:
    """Minutes per system folder (rows) and benchmark (columns), then why a score is
    missing or what its RCP check says, then the energy table. Rows are keyed by folder:
    two folders may share a system_name; the round is a column when rounds are mixed."""
    from ..results.hardware import short_accelerator

    benchmarks = sorted({s.benchmark for s in report.scores})
    mixed = len({s.ruleset for s in report.scores}) > 1
    rows: dict[tuple[Any, ...], dict[str, str]] = {}
    for s in report.scores:
        key = (
            s.org,
            s.system,
            s.system_name or "",
            s.division or "",
            s.availability or "",
            s.accelerators,
            short_accelerator(s.accelerator_model, s.system_name, s.host) or "",
            *((s.ruleset,) if mixed else ()),
        )
        cell = f"{s.minutes:.2f}" if s.minutes is not None else "invalid"
        if s.rcp_verdict not in (None, "Pass"):
            cell += f" (RCP {s.rcp_verdict})"
        rows.setdefault(key, {})[s.benchmark] = cell
    header = ("org", "system", "system_name", "division", "availability", "accelerators")
    header += ("model", *(("round",) if mixed else ()), *benchmarks)
    body = []
    for key in sorted(rows, key=_row_order):
        org, system, name, division, availability, accelerators, model, *chosen = key
        cells = [rows[key].get(b, "") for b in benchmarks]
        described = (org, system, name, division, availability, _count(accelerators), model)
        body.append((*described, *chosen, *cells))
    title = ("Time to train (minutes)",)
    footer = tuple(_notes(report))
    minutes = tables.Table(header, body, right=benchmarks, title=title, footer=footer)
    return [minutes, *_energy_table(report)]


def _notes(report: Any) -> list[str]:
    """Under the table: why a score is invalid, an RCP verdict other than Pass, and the
    score the official tools would give once a pending normalization is written."""
    notes = []
    for s in report.scores:
        where = f"{s.org}/{s.system}/{s.benchmark}"
        if not s.valid or (s.rcp_verdict not in (None, "Pass")):
            why = s.reason if not s.valid else f"RCP {s.rcp_verdict}: {s.rcp_message}"
            notes.append(f"{where}: {why}")
        if s.score_if_normalized is not None:
            factor = s.rcp_scaling_factor or 1.0
            notes.append(
                f"{where}: no scaling.json; normalized (x{factor:.4f}, written by the "
                f"official package checker) it would be {s.score_if_normalized:.2f}"
            )
    return notes


def _weak_table(report: Any) -> list[tables.Table]:
    """MLPerf HPC weak scaling: the tuple (T, M, S, time to train all) per result."""
    if not report.weak:
        return []
    body = []
    for w in report.weak:
        minutes = f"{w.minutes:.2f}" if w.minutes is not None else "invalid"
        if w.rcp_verdict not in (None, "Pass"):
            minutes += f" (RCP {w.rcp_verdict})"
        rate = "" if w.models_per_minute is None else f"{w.models_per_minute:.3f}"
        body.append(
            (
                w.org,
                w.system_name or w.system,
                w.division or "",
                w.benchmark,
                _count(w.accelerators),
                f"{w.models}/{w.models_total}",
                _count(w.instance_scale),
                minutes,
                rate,
            )
        )
    header = ("org", "system", "division", "benchmark", "T", "M", "S", "minutes", "models/min")
    notes = tuple(f"{w.org}/{w.system}/{w.benchmark}: {w.reason}" for w in report.weak if w.reason)
    title = (
        "Weak scaling (T accelerators in the system, M models trained, S accelerators per "
        "model, minutes to train all)",
    )
    right = ("T", "M", "S", "minutes", "models/min")
    return [tables.Table(header, body, right=right, title=title, footer=notes)]


def _energy_table(report: Any) -> list[tables.Table]:
    """Energy to train of the results with power logs (docs/power.md), ranked per
    benchmark: energy per run, runs per MWh, per accelerator."""
    from ..results.efficiency import efficiency_rows
    from ..results.hardware import short_accelerator

    rows = efficiency_rows(report.scores)
    if not rows:
        return []
    body = [
        (
            r.benchmark,
            str(r.rank),
            r.org,
            r.system,
            short_accelerator(r.accelerator_model) or "",
            _count(r.accelerators),
            f"{r.kwh_per_run:.2f}",
            f"{r.runs_per_mwh:.1f}",
            "-" if r.kwh_per_accelerator is None else f"{r.kwh_per_accelerator:.3f}",
            _fixed(r.avg_power_w, 1e-3, 2),
            _fixed(r.node_share, 100.0, 1),
            _fixed(r.switch_share, 100.0, 1),
            _fixed(r.perf_per_watt, 1.0, 3),
            r.method,
        )
        for r in rows
    ]
    header = ["benchmark", "rank", "org", "system", "model", "accelerators", "kWh/run"]
    header += ["runs/MWh", "kWh/run/accel", "avg kW", "node %", "switch %", "runs/h/kW"]
    header += ["method"]
    title = (
        "Energy to train, ranked (olympic mean per run; kWh/run/accel: per accelerator; "
        "avg kW: mean power over the timed runs; runs/h/kW: performance per watt)",
    )
    right = ("rank", "accelerators", "kWh/run", "runs/MWh", "kWh/run/accel", *header[9:13])
    return [tables.Table(header, body, right=right, title=title)]


def _row_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """By org, system folder, its name, division, availability, then accelerators as
    numbers (8 before 16), model and round."""
    org, system, name, division, availability, accelerators, *rest = key
    count = accelerators if isinstance(accelerators, int) else -1
    described = (str(org), str(system), str(name), str(division), str(availability))
    return (*described, count, *(str(x) for x in rest))


def _fixed(value: float | None, scale: float, digits: int) -> str:
    return "-" if value is None else f"{value * scale:.{digits}f}"


def _count(value: int | None) -> str:
    return "" if value is None else str(value)


def _runs_table(report: Any) -> list[tables.Table]:
    power = any(r.energy_j is not None for r in report.runs)
    noted = any(r.note for r in report.runs)  # the column only where a run has a note
    header = ["path", "minutes", "run_stop_status", "converged", "compliant"]
    header += ["epochs_or_samples"]
    header += ["batch", "seeds", *(["energy kWh", "avg kW"] if power else [])]
    header += ["note"] if noted else []
    body = []
    for r in report.runs:
        extra = [] if not power else [_fixed(r.energy_j, 1 / 3.6e6, 3)]
        extra += [_fixed(r.avg_power_w, 1e-3, 2)] if power else []
        extra += [r.note] if noted else []
        body.append(
            (
                r.path,
                "" if r.minutes is None else f"{r.minutes:.2f}",
                r.run_stop_status or "",
                "yes" if r.converged else "no",
                "yes" if r.compliant else "no",
                "" if r.epochs_or_samples is None else f"{r.epochs_or_samples:g}",
                _count(r.global_batch_size),
                ", ".join(str(s) for s in r.seeds),
                *extra,
            )
        )
    return [tables.Table(header, body, right=("energy kWh", "avg kW"), footer=_rcp_chances(report))]


def _rcp_chances(report: Any) -> tuple[str, ...]:
    """Below the runs: each result near its RCP bound, with the chance that runs like
    these pass again (docs/scores.md, "How sure is an RCP verdict")."""
    lines = [
        f"RCP {s.folder}: {s.rcp_verdict}, {s.rcp_message}"
        for s in report.scores
        if s.rcp_pass_probability is not None
    ]
    return tuple(sorted(lines))
