"""``mllog-check check``: compliance of result logs with a round's rules.

Kept light for the pre-commit hook: no pandas, scipy, matplotlib or rich here. The
options are the table in ``check_options.py`` (which the hook's fast path reads too);
the work is ``check_run.run_check``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from .check_options import OPTIONS, PATHS, Option
from .check_run import run_check

if TYPE_CHECKING:
    from typing import TypedDict

    class _Settings(TypedDict, total=False):
        """What click.option is given for one row of the table."""

        help: str
        is_flag: bool
        multiple: bool
        metavar: str | None
        default: object
        show_default: bool
        type: click.Choice


def _option(option: Option) -> Callable[[Any], Any]:
    kwargs: _Settings = {"help": option.help}
    if option.is_flag:
        kwargs["is_flag"] = True
    elif option.multiple:
        kwargs.update({"multiple": True, "metavar": option.metavar})
    else:
        kwargs.update({"default": option.default, "show_default": True})
        if option.choices:
            kwargs["type"] = click.Choice(option.choices)
    return click.option(*option.flags, option.dest, **kwargs)


def _command(function: Callable[..., None]) -> click.Command:
    for option in reversed(OPTIONS):
        function = _option(option)(function)
    return click.command()(click.argument(PATHS, nargs=-1, required=True)(function))


@_command
def check(**params: Any) -> None:
    """Check MLPerf Training and HPC result logs (files, directories, '-') for compliance.

    Directories are walked in sorted order for result_*.txt files (gzip too; --include
    adds other names).
    Exit 0 when every log is compliant, 1 when some is not, 2 on a usage or input error
    (including a round whose rules this build does not have: never a pass).
    """
    sys.exit(run_check(**params))
