"""Which problems a command shows: ``--select``/``--ignore`` (codes or prefixes, as ruff's)
and ``--preview``, or ``select``/``ignore``/``preview`` in ``[tool.mllog-check]``.

One filter for every command that reports problems (``Selection.apply``), used at one
point per command before its exit code is computed, so that the exit code follows what
is shown. What it never hides (docs/design.md, "Selection and preview"):

- an error of a code that is not ``beyond`` (what the round's official tools reject): an
  ``--ignore`` naming such a code exactly is a usage error, and a prefix or a
  ``--select`` that leaves it out keeps it shown and counted, so that no selection turns
  a failing log into a PASS;
- codes no table registers (kept as they are).

A preview rule (``RuleInfo.lifecycle``) is shown only with ``--preview``; ``--strict``
raises stable beyond-official warnings only, so a preview rule it raised is shown as the
warning it is registered as. A code or prefix that matches no registered code is a usage
error (with a did-you-mean), never a silent no-op.
"""

from __future__ import annotations

from . import catalog
from .errors import UsageError
from .problems import Problem, Severity
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class SelectionError(UsageError):
    """A code or prefix that matches no rule, or an official error asked to be ignored."""


class Selection(Value):
    """What to show: codes or prefixes selected (empty: all) and ignored, and whether
    preview rules are shown. Made by ``selection(...)``, which checks the codes."""

    __slots__ = ("select", "ignore", "preview")

    def __init__(
        self, select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), preview: bool = False
    ) -> None:
        self.select = select
        self.ignore = ignore
        self.preview = preview

    def chosen(self, code: str) -> bool:
        """Whether ``--select``/``--ignore`` keep the code: the longest matching prefix
        decides (``--select MLR06 --ignore MLR060`` drops MLR060 only; as ruff, an ignore
        as specific as a select wins)."""
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        if not self.select:
            selected = 0
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected >= 0 and selected > ignored

    def severity(self, code: str, severity: Severity) -> Severity | None:
        """The severity a problem of ``code`` is shown with (a preview rule raised by
        --strict back to its registered warning), or None when the selection hides it."""
        info = catalog.registered(code)
        if info is None:
            return severity
        if severity is Severity.ERROR and not info.beyond:
            return severity  # what the official tools reject is never deselected
        if info.preview:
            if not self.preview:
                return None
            severity = info.severity  # --strict raises stable rules only
        return severity if self.chosen(code) else None

    def shown(self, problem: Problem) -> Problem | None:
        """The problem as shown, or None when the selection hides it."""
        severity = self.severity(problem.rule, problem.severity)
        if severity is None:
            return None
        return problem if severity is problem.severity else problem.replace(severity=severity)

    def rows(self, rows: list[Any], code: str) -> list[Any]:
        """Table rows of problems or anomalies (the report's, keyed ``code``: "rule" or
        "code"; severity "severity" when the row has one), filtered as ``apply``. Rows
        read from a file (an audit's record) carry codes no stage of this process
        registered: every table is loaded, so that a preview code is known as one."""
        catalog.load_tables()
        out = []
        for row in rows:
            given = Severity(row["severity"]) if "severity" in row else Severity.WARNING
            severity = self.severity(str(row[code]), given)
            if severity is None:
                continue
            if "severity" in row and severity is not given:
                row = {**row, "severity": str(severity)}
            out.append(row)
        return out

    def apply(self, problems: Iterable[Problem]) -> list[Problem]:
        """The problems shown, in their order."""
        out = []
        for problem in problems:
            kept = self.shown(problem)
            if kept is not None:
                out.append(kept)
        return out

    def verdict(self, verdict: Any) -> Any:
        """A log's verdict (``rules.LogVerdict``) with the problems shown; it passes when
        no error is left (only errors beyond the official tools can be left out)."""
        problems = self.apply(verdict.problems)
        errors = any(p.severity is Severity.ERROR for p in problems)
        had_errors = any(p.severity is Severity.ERROR for p in verdict.problems)
        passed = verdict.passed or (had_errors and not errors)
        return verdict.replace(problems=problems, passed=passed)


DEFAULT = Selection()


def split(values: Iterable[str]) -> tuple[str, ...]:
    """Repeated options and comma lists as one tuple of upper-case codes or prefixes."""
    return tuple(
        part.strip().upper() for value in values for part in value.split(",") if part.strip()
    )


def selection(
    select: Iterable[str] = (), ignore: Iterable[str] = (), preview: bool = False
) -> Selection:
    """A checked selection: every code or prefix must match a registered code, and an
    official error code cannot be ignored (SelectionError, a usage error: exit 2)."""
    chosen, dropped = split(select), split(ignore)
    if not chosen and not dropped:
        return Selection(preview=preview)  # nothing to check: no table is loaded
    known = catalog.codes()
    for option, values in (("--select", chosen), ("--ignore", dropped)):
        for value in values:
            _check_known(option, value, known)
    for value in dropped:
        info = catalog.registered(value)
        if info is not None and info.severity is Severity.ERROR and not info.beyond:
            raise SelectionError(
                f"--ignore {value}: {value} `{info.name}` is an error the round's official "
                "tools reject; it cannot be ignored (only checks beyond them and warnings "
                'can be deselected: docs/design.md, "Selection and preview")'
            )
    return Selection(chosen, dropped, preview)


def _check_known(option: str, value: str, known: list[str]) -> None:
    if any(code.startswith(value) for code in known):
        return
    retired = catalog.retired_entry(value)
    if retired is not None:
        raise SelectionError(
            f"{option} {value}: {value} `{retired.name}` was retired in {retired.version} "
            f"and is no longer reported ({retired.why})"
        )
    from .suggest import did_you_mean

    families = sorted({code[:3] for code in known})
    hint = did_you_mean(value, [*known, *families])
    raise SelectionError(f"{option} {value}: no rule code is or starts with {value}{hint}")
