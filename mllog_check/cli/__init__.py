"""The command line: a thin click layer over the library.

Commands are registered by name and imported only when run (``group.py``), so that
``mllog-check check FILE`` (the pre-commit hook) does not pay for pandas, matplotlib or
the other commands' imports. A plain ``check`` call (known options and paths) does not
import click either: ``check_options.read_fast`` reads it from the same option table as
the click command (click's import costs about as much as checking one log).
"""

from __future__ import annotations

import sys

from ..safety import human

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# name -> "module:function"; each command lives in its own module beside this one.
COMMANDS: dict[str, str] = {
    "check": "mllog_check.cli.check:check",
    "parse": "mllog_check.cli.parse:parse",
    "package": "mllog_check.cli.package:package",
    "audit": "mllog_check.cli.audit:audit",
    "cost": "mllog_check.cli.cost:cost",
    "score": "mllog_check.cli.score:score",
    "report": "mllog_check.cli.report:report",
    "trends": "mllog_check.cli.trends:trends",
    "hparams": "mllog_check.cli.hparams:hparams",
    "summarize": "mllog_check.cli.summarize:summarize",
}

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def __getattr__(name: str) -> Any:
    """``cli``, the click group, is built on first use (``from mllog_check.cli import cli``)."""
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> Any:
    """Console entry point; usage errors exit 2 (click's convention and ours)."""
    args = sys.argv[1:] if argv is None else list(argv)
    from ..safety import guarded

    # Notes, problems and usage errors on stderr carry names and values from the inputs:
    # no escape sequence or workflow command gets through (docs/security.md).
    sys.stderr = guarded(sys.stderr)
    try:
        if args[:1] == ["check"]:
            from .check_options import read_fast

            params = read_fast(args[1:])
            if params is not None:
                from .check_run import run_check

                sys.exit(run_check(**params))  # type: ignore[arg-type]
        from .group import cli

        return cli.main(args=argv, prog_name="mllog-check", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)
    except RuntimeError as err:
        if not _worker_died(err):
            raise
        # A worker process killed (out of memory, a signal): nothing it had is checked,
        # so no verdict; one line, not a traceback (docs/security.md).
        print(
            "mllog-check: a worker process stopped before it answered (killed, or out of "
            "memory); nothing was judged: run again, or with --jobs 1",
            file=sys.stderr,
        )
        sys.exit(2)
    except BrokenPipeError:  # `check DIR | head -1`: the reader left; exit as click does
        _quiet_stdout()
        sys.exit(1)


def _worker_died(err: BaseException) -> bool:
    """A process pool broken by a worker's death (parallel.py)."""
    from concurrent.futures import BrokenExecutor

    return isinstance(err, BrokenExecutor)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot raise again
    (https://docs.python.org/3/library/signal.html#note-on-sigpipe)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout: nothing to flush
        pass


RULESET_HELP = (
    "Round, in any spelling (5.1.0, 5.1, v5.1, training-5.1.0; MLPerf HPC: hpc-3.0, "
    "hpc_3.0.0, or 3.0.0 with --usage hpc), or 'auto' (default): "
    "[tool.mllog-check] ruleset in the nearest pyproject.toml, else a round folder in the "
    "path (v5.1/, training_results_v5.1/), else the logs' content and the run's date (the "
    "round whose submission window holds it; the newest the content allows when no date "
    "tells, said so). Explicit beats config beats folder beats content. A round that "
    "cannot be the log's (another log syntax) is a usage error."
)


def ruleset_option(extra: str = "") -> Any:
    """The --ruleset option of every command: one name, default and help text."""
    import click

    help_text = RULESET_HELP + (" " + extra if extra else "")
    return click.option("--ruleset", default="auto", show_default=True, help=help_text)


def usage_option() -> Any:
    """The --usage option (Training or MLPerf HPC): one name, choices and help text."""
    import click

    return click.option("--usage", type=click.Choice(USAGES), help=USAGE_HELP)


def chosen_round(command: str, flag: str | None) -> Any:
    """How every command takes its round: the flag checked (an unknown round exits 2),
    and, when it says auto, the project setting (None without one). Notes about the
    project file (an unknown key, a misspelled table) go to stderr."""
    check_round_name(command, flag)
    return round_setting(command, flag)


def round_setting(command: str, flag: str | None) -> Any:
    """The project setting that applies (only when the flag says auto); a bad one exits 2."""
    from ..rounds import RoundError, is_auto

    if not is_auto(flag):
        return None
    setting = project_setting(command)
    if setting is None or setting.round_setting is None:
        return None
    try:
        from ..rounds import from_setting

        from_setting(setting)  # an unknown round in the file is a usage error now
    except RoundError as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)
    return setting.round_setting


# The project setting read in this process, by the files it came from (path, mtime,
# size): read once per command, its notes told once, read again when a file changes.
_PROJECT: dict[tuple[Any, ...], Any] = {}


def project_setting(command: str, quick: bool = False) -> Any:
    """``[tool.mllog-check]`` of the nearest pyproject.toml (rounds.read_setting), read
    once: its notes (an unknown key, a misspelled table) go to stderr the first time; a
    file that cannot be read exits 2. ``quick``: files that cannot hold the table are
    not parsed (the round is a flag's, so only the selection is read)."""
    import os

    from ..rounds import RoundError, read_setting

    here = os.getcwd()
    files = tuple(_project_files(here))
    if quick and (here, False, *files) in _PROJECT:
        return _PROJECT[(here, False, *files)]  # read whole already
    key: tuple[Any, ...] = (here, quick, *files)
    if key not in _PROJECT:
        try:
            setting, notes = read_setting(quick=quick)
        except RoundError as err:
            sys.stderr.write(human("mllog-check {}: {}\n", command, err))
            sys.exit(EXIT_USAGE)
        for note in notes:
            sys.stderr.write(human("mllog-check {}: warning: {}\n", command, note))
        _PROJECT.clear()
        _PROJECT[key] = setting
    return _PROJECT[key]


def _project_files(here: str) -> list[tuple[str, int, int]]:
    """The pyproject.toml files from ``here`` upwards, as (path, mtime, size)."""
    import os

    found = []
    folder = here
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        try:
            stat = os.stat(candidate)
            found.append((candidate, stat.st_mtime_ns, stat.st_size))
        except OSError:
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


SELECT_HELP = (
    "Show only problems of these codes or prefixes (repeatable, comma lists: --select "
    "MLR06 --ignore MLR060; [tool.mllog-check] select). Errors the round's official tools "
    "reject are always shown."
)
IGNORE_HELP = (
    "Hide problems of these codes or prefixes (repeatable, comma lists; added to "
    "[tool.mllog-check] ignore): checks beyond the official tools and warnings only; "
    "ignoring an official error code is a usage error."
)
PREVIEW_HELP = (
    "Also show preview rules: checks beyond the official tools whose firings on the "
    "published corpus are not yet documented (docs/codes.md; [tool.mllog-check] preview)."
)


def selection_or_exit(
    command: str, select: Any = (), ignore: Any = (), preview: bool = False
) -> Any:
    """The problems a command shows (``selection.Selection``): the flags, over the
    project's ``select`` (replaced by --select), ``ignore`` (added to) and ``preview``;
    an unknown code or prefix, or an official error ignored, exits 2."""
    from ..selection import SelectionError, selection

    setting = project_setting(command, quick=True)
    select, ignore = tuple(select or ()), tuple(ignore or ())
    try:
        if setting is not None:
            return selection(
                select or setting.select,
                (*setting.ignore, *ignore),
                preview or setting.preview,
            )
        return selection(select, ignore, preview)
    except SelectionError as err:
        from_file = setting is not None and (setting.select or setting.ignore)
        where = f" ({setting.path}: [tool.mllog-check])" if from_file else ""
        sys.stderr.write(human("mllog-check {}: {}{}\n", command, err, where))
        sys.exit(EXIT_USAGE)


def selection_options(function: Any) -> Any:
    """--select, --ignore and --preview (stated once for every command but check, whose
    options are the table in check_options.py)."""
    import click

    for option in reversed(
        (
            click.option("--select", multiple=True, metavar="CODE", help=SELECT_HELP),
            click.option("--ignore", multiple=True, metavar="CODE", help=IGNORE_HELP),
            click.option("--preview", is_flag=True, help=PREVIEW_HELP),
        )
    ):
        function = option(function)
    return function


CACHE_HELP = (
    "Keep each org's report in this folder and reuse it while the org's files, the call "
    "and this build are unchanged (default: $MLLOG_CHECK_CACHE_DIR, else the user's cache "
    'folder; docs/audit.md, "Cache").'
)


def cache_options(function: Any) -> Any:
    """--cache-dir and --no-cache (package and audit: the result cache, resultcache.py)."""
    import click

    function = click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")(
        function
    )
    return click.option("--cache-dir", metavar="DIR", default=None, help=CACHE_HELP)(function)


def cache_or_none(command: str, no_cache: bool, folder: str | None) -> Any:
    """The result cache (``resultcache.ResultCache``) of --cache-dir, else the default
    folder; None with --no-cache, or when the folder cannot be used safely (a link, not
    a folder), said on stderr: a cache never stops a run."""
    if no_cache:
        return None
    import click

    from ..resultcache import CacheError, open_cache
    from ..safety import human

    try:
        return open_cache(folder)
    except CacheError as err:
        click.echo(human("mllog-check {}: cache not used: {}", command, err), err=True)
        return None


USAGES = ("training", "hpc")  # the official tools' --usage values
USAGE_HELP = (
    "What the logs are: training or hpc, as the official tools' --usage; with it a bare "
    "--ruleset names that usage's round (--usage hpc --ruleset 3.0.0 is hpc-3.0.0)."
)


def with_usage(command: str, flag: str, usage: str | None) -> str:
    """The --ruleset a --usage qualifies ('3.0.0' with hpc -> 'hpc-3.0.0'); exit 2 for an
    unknown usage or a round the usage does not have. auto and rule-file paths pass."""
    from ..rounds import RoundError, is_auto, parse_round, usage_of

    try:
        known = usage_of(usage)
        if known is None or is_auto(flag) or flag.endswith(".yaml"):
            return flag
        return parse_round(flag, known).version
    except RoundError as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)


def check_round_name(command: str, flag: str | None) -> None:
    """Exit 2 for a --ruleset that names no known round (auto and rule-file paths pass)."""
    from ..rounds import RoundError, is_auto, parse_round

    if is_auto(flag) or flag is None or flag.endswith(".yaml"):
        return
    try:
        parse_round(flag)
    except RoundError as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)


def writable_or_exit(
    command: str, path: str | None, folder: bool = False, parents: bool = False
) -> None:
    """An output named on the command line (``-o FILE``, or ``--out``/``--plots`` as a
    folder, made now) checked before the run: exit 2 saying why it cannot be written,
    rather than after the whole run (docs/security.md). ``parents``: a file whose
    missing folders the command makes (``report --out new/report.html``)."""
    from pathlib import Path

    from ..outputs import OutputError, check_writable, output_folder

    if path is None:
        return
    try:
        if parents and not folder:
            _make_parents(Path(path))
        if folder:
            output_folder(path)
        else:
            check_writable(path)
    except OutputError as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)


def table_format_or_exit(command: str, fmt: str, output: str | None) -> None:
    """Before any work: a binary table format (Parquet) needs ``--output`` or a
    redirected stdout, and its writer the analysis extra; exit 2 saying which."""
    from ..extras import MissingExtra
    from ..reporters import tables

    if tables.FORMATS[fmt].binary and output is None and sys.stdout.isatty():
        sys.stderr.write(
            human("error: {} is binary: give --output FILE (or redirect stdout)\n", fmt)
        )
        sys.exit(EXIT_USAGE)
    try:
        tables.require(fmt, "Parquet output")
    except MissingExtra as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)


def _make_parents(path: Path) -> None:
    """The folders above an output file the user named (a link among them is theirs to
    choose; only the file itself is never written through a link)."""
    from ..outputs import OutputError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(
            f"{path.parent}: cannot make the folder ({err.strerror or err})"
        ) from None


def write_output_file(command: str, fmt: str, tables: Any, path: str) -> None:
    """``--output FILE`` of a table command, in format ``fmt``: never through a link
    (docs/security.md); a refused file exits 2 saying why."""
    from ..outputs import OutputError
    from ..reporters.tables import write_file

    try:
        write_file(fmt, tables, path)
    except OutputError as err:
        sys.stderr.write(human("mllog-check {}: {}\n", command, err))
        sys.exit(EXIT_USAGE)
