"""The one registry of problem formats, for every command that reports problems.

A format is one writer, ``write(report, out)``: ``report`` is a :class:`Report` (the
command, what it made, and its checked paths as ``files``: verdict-like objects with
``path``, ``passed``, ``division``, ``benchmark``, ``ruleset``, ``problems``; a
``mllog_check.rules.LogVerdict`` is one), ``out`` a text stream. ``check`` hands its
verdicts; ``package`` and ``audit`` their reports, whose ``files`` are one per path that
has problems. A writer whose output for a command is more than its problems (the
package's org verdict and scores, the audit's per-org summary) says so in its own body.
Writers are registered as "module:function" and imported only when used: adding a
format is one entry here and its writer (docs/design.md, "Output formats").
"""

from __future__ import annotations

import importlib

from ..values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TextIO

    Writer = Callable[["Report", TextIO], None]

CHECK, PACKAGE, AUDIT = "check", "package", "audit"
_ALL = (CHECK, PACKAGE, AUDIT)


class ProblemFormat(Value):
    """A registered format (a Value, not a dataclass: check's start-up time, values.py)."""

    __slots__ = ("name", "writer", "commands", "label")

    def __init__(
        self,
        name: str,
        writer: str,  # "module:function" writing a report: write(report, out)
        commands: tuple[str, ...] = _ALL,  # the commands that offer it
        label: str = "",  # its name in prose (docs/design.md's table of formats)
    ) -> None:
        self.name = name
        self.writer = writer
        self.commands = commands
        self.label = label or name


class Report:
    """What a format writes: the command, what it made (``source``: check's verdicts, a
    ``PackageReport``, an ``AuditResult``) and the writer's ``options`` (text's
    ``quiet``, ``info``)."""

    __slots__ = ("command", "source", "options", "_files")

    def __init__(self, command: str, source: Any, options: Mapping[str, Any] | None = None):
        self.command = command
        self.source = source
        self.options: Mapping[str, Any] = {} if options is None else options
        self._files: list[Any] | None = None

    @property
    def files(self) -> list[Any]:
        """The checked paths: check's verdicts; the package's and the audit's paths that
        have problems, one each (``summary.package_files``, ``summary.audit_files``)."""
        if self._files is None:
            if self.command == CHECK:
                self._files = list(self.source)
            else:
                from . import summary

                of = summary.package_files if self.command == PACKAGE else summary.audit_files
                self._files = list(of(self.source))
        return self._files


_MACHINE = "mllog_check.reporters.machine"
_TEXT = "mllog_check.reporters.text"
FORMATS: dict[str, ProblemFormat] = {
    f.name: f
    for f in (
        ProblemFormat("text", f"{_TEXT}:text"),
        ProblemFormat("json", f"{_MACHINE}:json_report", label="JSON"),
        ProblemFormat("csv", f"{_MACHINE}:csv_report", (PACKAGE, AUDIT), label="CSV"),
        ProblemFormat("junit", f"{_MACHINE}:junit_report", label="JUnit"),
        ProblemFormat("sarif", f"{_MACHINE}:sarif_report", label="SARIF"),
        ProblemFormat("github", f"{_TEXT}:github", label="GitHub annotations"),
    )
}


def offered(command: str) -> tuple[str, ...]:
    """The formats ``command`` offers, in the registry's order (its --format choices)."""
    return tuple(n for n, f in FORMATS.items() if command in f.commands)


def names(command: str = CHECK) -> list[str]:
    """The formats ``command`` offers, sorted."""
    return sorted(offered(command))


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Writer:
    """The writer registered under ``name`` (KeyError for an unknown format)."""
    writer: Writer = _load(FORMATS[name].writer)
    return writer


def write(name: str, command: str, source: Any, out: TextIO, **options: Any) -> None:
    """Write what ``command`` made (``source``) in format ``name``, with the writer's
    ``options`` (the package's quiet). KeyError for a format the command does not offer."""
    fmt = FORMATS[name]
    if command not in fmt.commands:
        raise KeyError(f"{command} does not offer format {name}")
    if name == "text":  # human text: nothing a terminal or CI log acts on (safety.py)
        from ..safety import guarded

        out = guarded(out)
    get(name)(Report(command, source, options), out)
    if name == "text":
        out.flush()  # the guard's last partial line


def ordered(files: Sequence[Any]) -> list[Any]:
    """Files by path, so that every format is deterministic whatever the input order."""
    return sorted(files, key=lambda f: f.path)
