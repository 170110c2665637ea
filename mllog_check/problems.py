"""The one value type every stage reports: syntax errors, schema errors, rule failures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Context(NamedTuple):
    """Where in a round a problem sits: the audit's org, system and benchmark columns.

    Empty for what check and package report (their outputs name no org)."""

    org: str = ""
    system: str = ""
    benchmark: str = ""


NO_CONTEXT = Context()

# The columns of Problem.to_dict(): what check's and package's JSON and CSV show.
FIELDS = ("path", "line", "column", "rule", "name", "severity", "message", "text")


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """Something wrong (or worth knowing) at a place in a file.

    ``line`` and ``column`` are 1-based positions in the original file; 0 means
    "the file as a whole" (a missing key, an unreadable file).
    """

    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    name: str = ""
    # The offending text, shortened for display; not part of the identity.
    text: str = field(default="", compare=False)
    # Org, system and benchmark in an audited round (last: sorting by place is unchanged).
    context: Context = NO_CONTEXT

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.column}"

    def row(self, columns: Sequence[str] = FIELDS) -> dict[str, Any]:
        """The one row of a problem for CSV, Parquet and JSON, with ``columns`` in order.

        Columns: the fields, ``org``/``system``/``benchmark`` (its context), and the
        audit's names ``code`` (the rule's code) and ``kind`` (the rule's name).
        """
        values: dict[str, Any] = {
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
        }
        return {column: values[column] for column in columns}

    def to_dict(self) -> dict[str, object]:
        return self.row()

    def __str__(self) -> str:
        return format_problem(self)


def format_problem(p: Problem) -> str:
    """The one text form of a problem, in every command's human output:
    ``path:line:col: severity: CODE message [name]`` (the form compilers write, which
    editors and CI problem matchers read), then the offending text, indented, when known.
    """
    name = f" [{p.name}]" if p.name else ""
    line = f"{p.location()}: {p.severity}: {p.rule} {p.message}{name}"
    return f"{line}\n    {p.text}" if p.text else line


def shorten(text: str, limit: int = 160) -> str:
    """Text of a line as it goes into a message: one line, bounded length."""
    text = text.replace("\r", "\\r").replace("\x00", "\\0").replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
