"""Human text and GitHub Actions workflow commands."""

from __future__ import annotations

from collections.abc import Sequence

from ..problems import Severity, write_problems
from ..safety import human
from . import AUDIT, CHECK, PACKAGE, Report, ordered

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any, TextIO


def text(report: Report, out: TextIO) -> None:
    """Human text: the package's and the audit's reports (summary.package_text,
    summary.audit_text, with their ``quiet`` and ``info`` options); check's verdicts."""
    if report.command == CHECK:  # the hook's path: summary (dataclasses) stays unloaded
        write_text(report.files, out)
        return
    from . import summary

    if report.command == PACKAGE:
        summary.package_text(report.source, out, **report.options)
    elif report.command == AUDIT:
        summary.audit_text(report.source, out, **report.options)


def write_text(files: Sequence[Any], out: TextIO) -> None:
    passed = 0
    for f in ordered(files):
        write_problems(sorted(f.problems), out)
        verdict = "pass" if f.passed else "FAIL"
        passed += bool(f.passed)
        chain = f"{f.division or '?'} {f.benchmark or '?'}"
        said = f"{chain}, {f.ruleset}" if f.ruleset else "not an MLPerf log"
        out.write(human("{}: {} ({})\n", f.path, verdict, said))  # a file name forges no line
    if len(files) > 1:
        out.write(human("{}: {} pass, {} fail\n", _counted(files), passed, len(files) - passed))


def _counted(files: Sequence[Any]) -> str:
    """What the verdicts are of: a log whose round is uncertain has two, the second under
    the alternative round (docs/rounds.md, "A round chosen by date is uncertain"), and is
    still one file."""
    twice = _second_verdicts(files)
    logs = len(files) - twice
    if not twice:
        return f"{logs} files"
    if logs == 1:
        return f"1 file, {len(files)} verdicts under two rounds (its round is uncertain)"
    which = f"{twice} file{'' if twice == 1 else 's'} checked under two rounds"
    return f"{logs} files, {len(files)} verdicts ({which}: round uncertain)"


def _second_verdicts(files: Sequence[Any]) -> int:
    from ..checking import ALTERNATIVE

    return sum(getattr(f, "ruleset_source", None) == ALTERNATIVE for f in files)


def _escape(text: str, in_property: bool = False) -> str:
    # GitHub workflow command escaping: data escapes %, CR, LF; properties also : and ,
    # (https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts); the
    # other control characters become visible escapes (safety.printable).
    from ..safety import printable

    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if in_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return printable(text)


def github(report: Report, out: TextIO) -> None:
    """An annotation per problem; check and package add one notice when all passed."""
    if report.command == CHECK:
        check_github(report.files, out)
        return
    write_github(report.files, out)
    if report.command == PACKAGE:
        from .summary import package_notice

        notice = package_notice(report.source)
        if notice is not None:
            out.write(f"::notice title=mllog-check package::{_escape(notice)}\n")


def check_github(files: Sequence[Any], out: TextIO) -> None:
    """``check``'s annotations, and one notice line when every log passed (a CI log then
    says what was checked, not nothing)."""
    write_github(files, out)
    if files and all(f.passed for f in files):
        warnings = sum(len(f.problems) for f in files)
        more = f" ({warnings} warnings)" if warnings else ""
        checked = len(files) - _second_verdicts(files)  # two verdicts of one log: one log
        logs = f"{checked} log{'' if checked == 1 else 's'}"
        out.write(f"::notice title=mllog-check check::{logs} checked: all pass{more}\n")


def write_github(files: Sequence[Any], out: TextIO) -> None:
    """``::error file=...,line=...,col=...,title=...::message`` per problem."""
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for f in ordered(files):
        for p in sorted(f.problems):
            props = [f"file={_escape(p.path, True)}"]
            if p.line > 0:
                props += [f"line={p.line}", f"col={max(p.column, 1)}"]
            title = f"{p.rule} {p.name}".strip() + (f" ({p.impact})" if p.impact else "")
            props.append(f"title={_escape(title, True)}")
            out.write(f"::{levels[p.severity]} {','.join(props)}::{_escape(p.message)}\n")
