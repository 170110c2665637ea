"""What ``mllog-check check`` does once its options are read (by click or by the hook's
fast reading, ``cli/check_options.py``): one function, so both print the same."""

from __future__ import annotations

import sys

from ..safety import human
from . import EXIT_USAGE, chosen_round, selection_or_exit, with_usage

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import TextIO


def run_check(
    paths: tuple[str, ...],
    ruleset: str,
    strict: bool,
    fmt: str,
    verbose: bool,
    include: tuple[str, ...],
    follow: bool = False,
    fail_fast: bool = False,
    until: str | None = None,
    usage: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Check the paths and write the verdicts; the exit code (0 pass, 1 fail, 2 usage)."""
    from .. import reporters
    from ..checking import check_paths
    from ..errors import MllogCheckError

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    ruleset = with_usage("check", ruleset, usage)
    if (fail_fast or until) and not follow:
        err.write("mllog-check check: --fail-fast and --until go with --follow\n")
        return EXIT_USAGE
    setting = chosen_round("check", ruleset)
    shown = selection_or_exit("check", select, ignore, preview)
    if follow:
        from .follow import run_follow

        return run_follow(
            paths, ruleset, strict, fmt, verbose, fail_fast, until, setting, out, err, shown
        )
    try:  # never guess: no evidence, or rules not in this build, is a usage error
        run = check_paths(paths, ruleset, strict=strict, include=include, setting=setting)
    except MllogCheckError as error:
        err.write(human("mllog-check check: {}\n", error))
        return EXIT_USAGE
    # The one point where the selection applies: the exit code follows what is shown.
    run.verdicts = [shown.verdict(v) for v in run.verdicts]
    for line in run.lines(verbose):
        err.write(human("{}\n", line))
    if not run.verdicts:
        err.write("mllog-check check: no result logs found\n")
    else:
        reporters.write(fmt, reporters.CHECK, run.verdicts, out)
    return run.exit_code
