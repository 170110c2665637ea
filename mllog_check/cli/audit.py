"""``mllog-check audit RESULTS_DIR``: every org of a published round, in parallel."""

from __future__ import annotations

import contextlib
import gc
import sys
from pathlib import Path
from typing import Any

import click

from ..reporters import AUDIT, offered
from ..results.filters import ResultFilter
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    cache_options,
    cache_or_none,
    chosen_round,
    ruleset_option,
    selection_options,
    selection_or_exit,
    usage_option,
    with_usage,
    writable_or_exit,
)
from .filter_options import filter_options


@click.command(options_metavar="[OPTIONS]")
@click.argument("results_dirs", nargs=-1, required=True)
@ruleset_option()
@usage_option()
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: CPUs).",
)
@click.option(
    "--out",
    "out_dir",
    default="mllog-audit",
    show_default=True,
    help="Folder for the tables (never inside RESULTS_DIR).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(offered(AUDIT)),
    default="text",
    show_default=True,
    help="Stdout: text (a verdict per org, the ranked results, the anomalies of severity "
    "score and rules), or every problem and anomaly in that format (the 'wrote' line then "
    "goes to stderr).",
)
@click.option(
    "--info",
    "show_info",
    is_flag=True,
    help="Text: list anomalies of severity info too (framework habits, placeholders, "
    "clock skew; counted either way). Other formats and the files always hold them.",
)
@selection_options
@filter_options
@cache_options
def audit(
    results_dirs: tuple[str, ...],
    ruleset: str,
    jobs: int | None,
    out_dir: str,
    fmt: str,
    show_info: bool,
    result_filter: ResultFilter,
    usage: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
    cache_dir: str | None = None,
    no_cache: bool = False,
) -> None:
    """Audit RESULTS_DIR (one folder per org): a ranked results table (CSV, Parquet,
    JSON), runs and scores tables (CSV, Parquet), an anomaly report with each anomaly's
    severity (score, rules, info; CSV, JSON), per-org verdicts and every problem (CSV).

    Several round folders may be given (v1.0 v1.1 ...), or a results repository root
    holding them: they are audited together, so that runs re-used across rounds,
    systems and orgs are found; paths start with the round folder's name.

    The filters keep the scores and runs of the results they select, and the anomalies
    and problems not about a result left out; each org's verdict is of the whole org.

    Exit 0 clean (known habits, severity info, aside), 1 anomalies or failing orgs,
    2 usage or input error.
    """
    from .. import reporters
    from ..html_report.record import FILE as RECORD
    from ..outputs import OutputError
    from ..results.filters import filter_audit
    from ..submission.audit import (
        AuditError,
        check_output_dir,
        run_audit,
        selected,
        write_outputs,
    )
    from ..submission.parallel import Aside

    ruleset = with_usage("audit", ruleset, usage)
    setting = chosen_round("audit", ruleset)
    shown = selection_or_exit("audit", select, ignore, preview)
    _needs_parquet()
    out = Path(out_dir)
    try:
        for results_dir in results_dirs:
            check_output_dir(Path(results_dir), out)
        writable_or_exit("audit", out_dir, folder=True)
        cache = cache_or_none("audit", no_cache, cache_dir)
        with _progress() as tick:
            target = results_dirs[0] if len(results_dirs) == 1 else list(results_dirs)
            folder = None if cache is None else cache.folder
            result = run_audit(target, ruleset, jobs, tick, setting, folder)
        # The report's and trends' data, before the filters (--from-audit DIR): written
        # aside, by a thread, while this one writes the tables (parallel.py).
        base = _record_base(results_dirs)
        record = None
        # The audit's rows stay to the end: the collector need not walk them again.
        gc.freeze()
        if base is not None:
            work = (result, base, results_dirs, jobs, out)
            record = Aside(_write_record, work, inline=jobs == 1)
    except (AuditError, OutputError) as err:  # OutputError: the curves' temporary file
        click.echo(human("mllog-check audit: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    result = filter_audit(result, result_filter)
    # The one point where the selection applies: files, stdout and exit code alike.
    result = selected(result, shown)
    try:
        written = write_outputs(result, out)
        if record is not None:
            written.append(record.result())
        else:
            note = "no {} written: the rounds' paths have no one base (give their parent)"
            click.echo(human(note, RECORD), err=True)
    except (OutputError, AuditError) as err:
        _finished(record)  # never a record cut short by the exit
        click.echo(human("mllog-check audit: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    options = {"info": show_info} if fmt == "text" else {}
    reporters.write(fmt, AUDIT, result, sys.stdout, **options)
    click.echo(human("wrote {} files to {}", len(written), out), err=fmt != "text")
    sys.exit(EXIT_OK if result.clean else EXIT_PROBLEMS)


def _finished(record: Any) -> None:
    """Wait for the record's thread (its own error, if any, was said or is moot): the
    exit would stop it mid-file and leave a truncated ``record.json.gz``."""
    if record is not None:
        with contextlib.suppress(Exception):
            record.result()


def _record_base(results_dirs: tuple[str, ...]) -> Path | None:
    """The folder the audit's paths are relative to: below the round folder, or the
    folder above each round, as run_audit names them; None when there is no one base
    (v0.5's nested round named beside others)."""
    from ..submission.audit import expand_repositories

    roots, _ = expand_repositories([Path(d) for d in results_dirs])
    bases = {(r if len(roots) == 1 else r.parent).resolve() for r in roots}
    return bases.pop() if len(bases) == 1 else None


def _write_record(
    result: Any, base: Path, results_dirs: tuple[str, ...], jobs: int | None, out: Path
) -> Path:
    """The report's data of the whole audit (html_report/record.py), its rows as the
    report gathers them and every run's evaluation curve, written into ``out``."""
    from ..html_report.record import from_audit, write_record

    return write_record(from_audit(result, base, results_dirs, jobs), out)


def _needs_parquet() -> None:
    """The audit's tables are also Parquet (pyarrow, the analysis extra): say so first."""
    from ..extras import MissingExtra
    from ..reporters import tables

    try:
        tables.require("parquet", "the audit's Parquet tables")
    except MissingExtra as err:
        click.echo(human("mllog-check audit: {}", err), err=True)
        sys.exit(EXIT_USAGE)


class _progress:
    """A rich progress bar on a terminal (stderr); silent otherwise."""

    def __enter__(self) -> Any:
        self.bar: Any = None
        if not sys.stderr.isatty():
            return lambda org, done, total: None
        try:  # a bar when rich (the analysis extra) is installed; else none
            from rich.progress import Progress
        except ImportError:
            return lambda org, done, total: None

        self.bar = Progress(transient=True, console=None)
        self.bar.__enter__()
        task = self.bar.add_task("auditing orgs", total=None)

        def tick(org: str, done: int, total: int) -> None:
            from rich.markup import escape

            from ..safety import printable

            # An org folder's name is data: no rich markup, no escape sequence.
            name = escape(printable(org))
            self.bar.update(task, completed=done, total=total, description=f"audited {name}")

        return tick

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
