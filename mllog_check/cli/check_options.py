"""The options of ``mllog-check check``, stated once, and the hook's fast reading of them.

The click command (``cli/check.py``) is built from ``OPTIONS``. ``read_fast`` reads the
same table for the common calls of the pre-commit hook and of scripts (known options and
paths), so that a single-file check does not pay for importing click, which takes about
as long as checking a log. Anything else (help, an unknown or repeated option, a value
that looks like an option, a format not in the registry, no path) returns None and click
reads the arguments, with its own messages. ``tests/test_check_fast.py`` checks that
both readings give the same parameters for every argument list they both accept.
"""

from __future__ import annotations

from ..reporters import CHECK, names
from ..values import Value
from . import IGNORE_HELP, PREVIEW_HELP, RULESET_HELP, SELECT_HELP, USAGE_HELP, USAGES


class Option(Value):
    __slots__ = ("flags", "dest", "help", "default", "is_flag", "multiple", "choices", "metavar")

    def __init__(
        self,
        flags: tuple[str, ...],  # "-v", "--verbose"
        dest: str,  # the parameter name of the command function
        help: str,
        default: object = None,
        is_flag: bool = False,
        multiple: bool = False,
        choices: tuple[str, ...] = (),
        metavar: str | None = None,
    ) -> None:
        self.flags = flags
        self.dest = dest
        self.help = help
        self.default = default
        self.is_flag = is_flag
        self.multiple = multiple
        self.choices = choices
        self.metavar = metavar


PATHS = "paths"  # the one argument: files, directories or '-' (at least one)

OPTIONS: tuple[Option, ...] = (
    Option(
        ("--ruleset",),
        "ruleset",
        RULESET_HELP + " A rule file path (.yaml) is used as given. 0.5.0: parse checks only.",
        default="auto",
    ),
    Option(("--usage",), "usage", USAGE_HELP, choices=USAGES),
    Option(
        ("--include",),
        "include",
        "Also take files with this name pattern inside directories (repeatable), "
        "e.g. --include '*.log'. By default only result_*.txt and result_*.txt.gz.",
        multiple=True,
        metavar="GLOB",
    ),
    Option(
        ("-v", "--verbose"), "verbose", "Say which ruleset each log got, and why.", is_flag=True
    ),
    Option(
        ("--strict",),
        "strict",
        "Stable checks beyond the official ones (MLC1xx, MLP024, MLR060) fail too.",
        is_flag=True,
    ),
    Option(("--select",), "select", SELECT_HELP, multiple=True, metavar="CODE"),
    Option(("--ignore",), "ignore", IGNORE_HELP, multiple=True, metavar="CODE"),
    Option(("--preview",), "preview", PREVIEW_HELP, is_flag=True),
    Option(
        ("--follow",),
        "follow",
        "Check one log while it grows (tail -F: waits for lines, survives truncation and "
        "rotation; '-' reads a pipe): problems on stderr as soon as certain, a status "
        "line, and check's report on stdout at the end (docs/follow.md).",
        is_flag=True,
    ),
    Option(
        ("--fail-fast",),
        "fail_fast",
        "With --follow: exit 1 at the first certain error (e.g. || scancel $SLURM_JOB_ID).",
        is_flag=True,
    ),
    Option(
        ("--until",),
        "until",
        "With --follow: end when the run ends (after run_stop), exiting as check would "
        "on the finished file.",
        choices=("run_stop",),
    ),
    Option(
        ("--format",),
        "fmt",
        "Output format (stdout).",
        default="text",
        choices=tuple(names(CHECK)),
    ),
)


def defaults() -> dict[str, object]:
    """The parameters of a call that gives only paths (as click fills them in)."""
    return {o.dest: (() if o.multiple else False if o.is_flag else o.default) for o in OPTIONS}


def read_fast(args: list[str]) -> dict[str, object] | None:
    """The check command's parameters from ``args`` (after ``check``), or None: click reads."""
    by_flag = {flag: option for option in OPTIONS for flag in option.flags}
    params = defaults()
    seen: set[str] = set()
    paths: list[str] = []
    multiple: dict[str, list[str]] = {}
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            paths.extend(rest)
            break
        if not arg.startswith("-") or arg == "-":
            paths.append(arg)
            continue
        flag, equals, inline = arg.partition("=")
        option = by_flag.get(flag)
        if option is None or (option.dest in seen and not option.multiple):
            return None  # unknown (help too) or repeated: click decides
        seen.add(option.dest)
        if option.is_flag:
            if equals:
                return None
            params[option.dest] = True
            continue
        value = inline if equals else next(rest, None)
        if value is None or (not equals and value.startswith("-")):
            return None
        if option.choices and value not in option.choices:
            return None
        if option.multiple:
            multiple.setdefault(option.dest, []).append(value)
        else:
            params[option.dest] = value
    if not paths:
        return None
    params.update({dest: tuple(values) for dest, values in multiple.items()})
    params[PATHS] = tuple(paths)
    return params
