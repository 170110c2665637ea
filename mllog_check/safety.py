"""Text from logs, folder names and system descriptions, made inert where it is shown.

What the tool reads may be written by an adversary (docs/security.md), and what it
writes is read by terminals, CI logs and spreadsheets:

- ``printable``: one value in a line of human output. Control characters (C0, DEL, C1),
  line and paragraph separators and bidirectional overrides become visible escapes
  (``\\x1b``, ``\\n``, ``\\u202e``): no terminal escape sequence, no forged line.
- ``Guarded``: a text stream for human output (text, table, stderr). The same
  escaping, except that newlines stay; a line that would start with ``::`` (a GitHub
  Actions workflow command, https://docs.github.com/en/actions/reference/
  workflow-commands-for-github-actions) starts with ``\\x3a:`` instead.
- ``csv_cell``: a CSV cell that a spreadsheet would take for a formula (text starting
  with ``=``, ``+``, ``-``, ``@``, tab or CR) gets a leading ``'``, as OWASP recommends
  (https://owasp.org/www-community/attacks/CSV_Injection); numbers, and text that is a
  plain number ("-1.5"), stay as they are.

Imported on the check path: str.translate tables only, no regular expressions.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TextIO

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CODES = [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, *_BIDI]


def _escape(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_VALUE = {code: _escape(code) for code in _CODES}
_LINES = {code: text for code, text in _VALUE.items() if code != 0x0A}
_COMMAND = "::"  # a workflow command at the start of a line


def printable(text: str) -> str:
    """One value as shown in a line of human output: nothing a terminal acts on (a line
    start is the stream's to guard: ``Guarded``)."""
    return text.translate(_VALUE)


def printable_lines(text: str) -> str:
    """Several lines of human output: as ``printable``, newlines kept."""
    lines = text.translate(_LINES).split("\n")
    return "\n".join("\\x3a" + ln[1:] if ln.startswith(_COMMAND) else ln for ln in lines)


class Guarded:
    """A text stream whose lines go through ``printable_lines``: a line is written
    once complete (or on flush), so that its start is known. Everything else (encoding,
    isatty, fileno) is the wrapped stream's; ``raw`` is the wrapped stream itself."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream
        self._partial = ""

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        if lines:
            self.raw.write(printable_lines("\n".join(lines)) + "\n")
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._partial:
            self.raw.write(printable_lines(self._partial))
            self._partial = ""
        self.raw.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def guarded(stream: TextIO) -> TextIO:
    """``stream`` behind a Guarded (once)."""
    return stream if isinstance(stream, Guarded) else Guarded(stream)  # type: ignore[return-value]


_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER_CHARS = frozenset("0123456789.eE+-")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet opens as data, never as a formula (OWASP)."""
    if isinstance(value, str) and value.startswith(_FORMULA) and not _is_number(value):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    return [csv_cell(v) for v in values]


def _is_number(text: str) -> bool:
    if not set(text) <= _NUMBER_CHARS:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True
