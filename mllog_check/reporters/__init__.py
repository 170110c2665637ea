"""The one registry of problem formats, for every command that reports problems.

A format writes ``files`` (verdict-like objects: ``path``, ``passed``, ``division``,
``benchmark``, ``ruleset``, ``problems``; a ``mllog_check.rules.LogVerdict`` is one)
to a text stream: ``write(files, out)``. ``check`` hands its verdicts; ``package`` and
``audit`` hand one file per path that has problems (``files_of``). A format whose output
for a command is more than its problems (the package's org verdict and scores, the
audit's per-org summary) names that command's own writer of its report. Writers are
registered as "module:function" and imported only when used.
"""

from __future__ import annotations

import importlib

from ..values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TextIO

    Reporter = Callable[[Sequence[Any], TextIO], None]

CHECK, PACKAGE, AUDIT = "check", "package", "audit"
_ALL = (CHECK, PACKAGE, AUDIT)


class ProblemFormat(Value):
    """A registered format (a Value, not a dataclass: check's start-up time, values.py)."""

    __slots__ = ("name", "writer", "commands", "own", "label")

    def __init__(
        self,
        name: str,
        writer: str,  # "module:function" writing files: write(files, out)
        commands: tuple[str, ...] = _ALL,  # the commands that offer it
        # command -> "module:function" writing that command's whole report: write(report, out)
        own: Mapping[str, str] | None = None,
        label: str = "",  # its name in prose (the docs' lists: scripts/round_mentions.py)
    ) -> None:
        self.name = name
        self.writer = writer
        self.commands = commands
        self.own: Mapping[str, str] = {} if own is None else own
        self.label = label or name


_SUMMARY = "mllog_check.reporters.summary"
_TEXT = "mllog_check.reporters.text"
FORMATS: dict[str, ProblemFormat] = {
    f.name: f
    for f in (
        ProblemFormat(
            "text",
            "mllog_check.reporters.text:write_text",
            own={PACKAGE: f"{_SUMMARY}:package_text", AUDIT: f"{_SUMMARY}:audit_text"},
        ),
        ProblemFormat(
            "json",
            "mllog_check.reporters.machine:write_json",
            own={PACKAGE: f"{_SUMMARY}:package_json"},
            label="JSON",
        ),
        ProblemFormat(
            "csv", "mllog_check.reporters.machine:write_csv", (PACKAGE, AUDIT), label="CSV"
        ),
        ProblemFormat(
            "junit",
            "mllog_check.reporters.machine:write_junit",
            own={PACKAGE: f"{_SUMMARY}:package_junit"},
            label="JUnit",
        ),
        ProblemFormat("sarif", "mllog_check.reporters.machine:write_sarif", label="SARIF"),
        ProblemFormat(
            "github",
            "mllog_check.reporters.text:write_github",
            own={PACKAGE: f"{_SUMMARY}:package_github", CHECK: f"{_TEXT}:check_github"},
            label="GitHub annotations",
        ),
    )
}
# How a command's report becomes files for the shared writers (check's are its verdicts).
_FILES_OF = {PACKAGE: f"{_SUMMARY}:package_files", AUDIT: f"{_SUMMARY}:audit_files"}


def offered(command: str) -> tuple[str, ...]:
    """The formats ``command`` offers, in the registry's order (its --format choices)."""
    return tuple(n for n, f in FORMATS.items() if command in f.commands)


def names(command: str = CHECK) -> list[str]:
    """The formats ``command`` offers, sorted."""
    return sorted(offered(command))


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Reporter:
    """The writer of files registered under ``name`` (KeyError for an unknown format)."""
    reporter: Reporter = _load(FORMATS[name].writer)
    return reporter


def write(name: str, command: str, report: Any, out: TextIO, **options: Any) -> None:
    """Write ``command``'s report in format ``name``: the command's own writer when the
    format has one (with ``options``, e.g. the package's quiet), else the shared writer
    of its files. KeyError for a format the command does not offer."""
    fmt = FORMATS[name]
    if command not in fmt.commands:
        raise KeyError(f"{command} does not offer format {name}")
    if name == "text":  # human text: nothing a terminal or CI log acts on (safety.py)
        from ..safety import guarded

        out = guarded(out)
    if command in fmt.own:
        _load(fmt.own[command])(report, out, **options)
    else:
        files = report if command == CHECK else _load(_FILES_OF[command])(report)
        get(name)(files, out)
    if name == "text":
        out.flush()  # the guard's last partial line


def ordered(files: Sequence[Any]) -> list[Any]:
    """Files by path, so that every format is deterministic whatever the input order."""
    return sorted(files, key=lambda f: f.path)
