"""The one value type every stage reports: syntax errors, schema errors, rule failures."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


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

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.column}"

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "name": self.name,
            "severity": str(self.severity),
            "message": self.message,
            "text": self.text,
        }


def shorten(text: str, limit: int = 160) -> str:
    """Text of a line as it goes into a message: one line, bounded length."""
    text = text.replace("\r", "\\r").replace("\x00", "\\0").replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
