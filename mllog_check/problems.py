"""The one value type every stage reports: syntax errors, schema errors, rule failures."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from .errors import MESSAGE_LIMIT, cut_message
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TextIO

    # A problem's row (Problem.row): the columns asked for, in order; a cell is a text
    # or a line or column number.
    ProblemRow = dict[str, str | int]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Context(Value):
    """Where in a round a problem sits: the audit's org, system and benchmark columns.

    Empty for what check and package report (their outputs name no org)."""

    __slots__ = ("org", "system", "benchmark")

    def __init__(
        self,
        org: str = "",
        system: str = "",
        benchmark: str = "",
    ) -> None:
        self.org = org
        self.system = system
        self.benchmark = benchmark


NO_CONTEXT = Context()

# The columns of Problem.to_dict(): what check's and package's JSON and CSV show.
FIELDS = ("path", "line", "column", "rule", "name", "severity", "message", "text")


class Problem(Value):
    """Something wrong (or worth knowing) at a place in a file.

    ``line`` and ``column`` are 1-based positions in the original file; 0 means
    "the file as a whole" (a missing key, an unreadable file). Immutable, equal, hashed
    and sorted by every field but ``text`` (the offending text, shortened for display).

    A Value, not a dataclass: on a single-file check, creating dataclasses (and importing
    the module) cost more than the check (docs/design.md, start-up time).
    """

    __slots__ = (
        "path", "line", "column", "rule", "severity", "message", "name", "text", "context",
        "impact",
    )  # fmt: skip
    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    name: str
    text: str
    # Org, system and benchmark in an audited round (last: sorting by place is unchanged).
    context: Context
    # An audit anomaly's severity for a reader (docs/audit.md, "Severity"): "score",
    # "rules" or "info"; empty for what check and package report.
    impact: str

    def __init__(
        self,
        path: str,
        line: int,
        column: int,
        rule: str,
        severity: Severity,
        message: str,
        name: str = "",
        text: str = "",
        context: Context = NO_CONTEXT,
        impact: str = "",
    ) -> None:
        if line > 0 and column < 1:  # a line's own problem: 1-based, its first column
            column = 1
        # Whatever built them, message and text are bounded here (docs/security.md,
        # "Bounds"): a relation quoting an 8,000,000-character value made an 8 MB line.
        if len(message) > MESSAGE_LIMIT:
            message = cut_message(message)
        if len(text) > MESSAGE_LIMIT:
            text = cut_message(text)
        values = (path, line, column, rule, severity, message, name, text, context, impact)
        for slot, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Problem is immutable: cannot set {name!r} (use replace)")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def _values(self) -> tuple[Any, ...]:
        """Identity without ``text``: the same problem shown with other text is equal."""
        return (
            self.path, self.line, self.column, self.rule, self.severity, self.message,
            self.name, self.context, self.impact,
        )  # fmt: skip

    def __reduce__(self) -> tuple[Any, ...]:  # pickling (audit --jobs) and copy
        return (Problem, tuple(getattr(self, slot) for slot in self.__slots__))

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.column}"

    def row(self, columns: Sequence[str] = FIELDS) -> ProblemRow:
        """The one row of a problem for CSV, Parquet and JSON, with ``columns`` in order.

        Columns: the fields, ``org``/``system``/``benchmark`` (its context), and the
        audit's names ``code`` (the rule's code), ``kind`` (the rule's name) and ``impact``
        (an anomaly's severity: score, rules, info).
        """
        values: ProblemRow = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "code": self.rule,
            "name": self.name,
            "kind": self.name,
            "severity": str(self.severity),
            "message": self.message,
            "text": self.text,
            "org": self.context.org,
            "system": self.context.system,
            "benchmark": self.context.benchmark,
            "impact": self.impact,
        }
        return {column: values[column] for column in columns}

    def to_dict(self) -> ProblemRow:
        return self.row()

    def __str__(self) -> str:
        return format_problem(self)


def format_problem(p: Problem) -> str:
    """The one text form of a problem, in every command's human output:
    ``path:line:col: severity: CODE message [name]`` (the form compilers write, which
    editors and CI problem matchers read), then the offending text, indented, when known.
    """
    from .safety import printable  # every part may come from a log or a file name

    name = f" [{printable(p.name)}]" if p.name else ""
    if p.impact:  # an audit anomaly: its severity beside its kind
        name = f" [{printable(p.name)}, {p.impact}]"
    line = f"{printable(p.location())}: {p.severity}: {printable(p.rule)} {printable(p.message)}"
    return f"{line}{name}\n    {printable(p.text)}" if p.text else line + name


def write_problems(problems: Iterable[Problem], out: TextIO) -> None:
    """Each problem in its one text form (``format_problem``), a line each."""
    for p in problems:
        out.write(format_problem(p) + "\n")


def shorten(text: str, limit: int = 160) -> str:
    """Text of a line as it goes into a message: one line, bounded length."""
    text = text.replace("\r", "\\r").replace("\x00", "\\0").replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
