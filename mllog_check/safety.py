"""Text from logs, folder names and system descriptions, made inert where it is shown.

What the tool reads may be written by an adversary (docs/security.md), and what it
writes is read by terminals, CI logs and spreadsheets:

- ``printable``: one value in a line of human output. Control characters (C0, DEL, C1),
  line and paragraph separators, bidirectional overrides and invisible characters
  (zero-width spaces and joiners, fillers, variation selectors, tags) become visible
  escapes (``\\x1b``, ``\\n``, ``\\u202e``, ``\\u200b``): no terminal escape
  sequence, no forged line, no name that looks like another. So do the letters of
  another script that look like Latin ones (Cyrillic ``А``, Greek ``Ο``: ``lookalike``)
  inside a word that has Latin letters too: ``\\u0410MD``, never a second "AMD".
- ``visible``: the same for a value of the HTML report or a CSV cell, except that tab,
  LF and CR stay (markup and CSV quoting hold them; HTML escaping is the templates' own).
- ``json_text``: a serialized JSON document with the same characters (and every
  look-alike letter) written as ``\\uXXXX`` escapes: the same values when parsed,
  nothing invisible, line-breaking (U+2028, U+0085) or look-alike in the bytes.
- ``Guarded``: a text stream for human output (text, table, stderr). The same
  escaping, except that newlines stay; a line that would start with ``::`` (a GitHub
  Actions workflow command, https://docs.github.com/en/actions/reference/
  workflow-commands-for-github-actions) starts with ``\\x3a:`` instead.
- ``human``: a line of human output from the tool's own template, every value formatted
  into it ``printable``: a name holding a line feed cannot forge a verdict line.
- ``csv_cell``: a CSV text cell as ``visible`` shows it; one that a spreadsheet would
  take for a formula (text starting with ``=``, ``+``, ``-``, ``@``, tab or CR) gets a
  leading ``'``, as OWASP recommends
  (https://owasp.org/www-community/attacks/CSV_Injection); numbers, and text that is a
  plain number ("-1.5"), stay as they are.

Imported on the check path: str.translate tables only, no regular expressions; text
that is all ASCII is returned after one translate.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TextIO

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# Characters that show nothing (https://www.unicode.org/reports/tr39/, "Default
# Ignorable"): zero-width space, joiners and non-joiners, word joiner, invisible
# operators, soft hyphen, Hangul fillers, Mongolian selectors, variation selectors, tags.
_INVISIBLE = [
    0x00AD,
    0x034F,
    0x115F,
    0x1160,
    0x17B4,
    0x17B5,
    *range(0x180B, 0x1810),
    *range(0x200B, 0x200E),
    *range(0x2060, 0x2066),
    *range(0x206A, 0x2070),
    0x3164,
    *range(0xFE00, 0xFE10),
    0xFEFF,
    0xFFA0,
    *range(0xE0000, 0xE0080),
    *range(0xE0100, 0xE01F0),
]
_CODES = [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, *_BIDI, *_INVISIBLE]


def _escape(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escape(code: int) -> str:
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # a UTF-16 surrogate pair, as JSON writes it
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


HIDDEN = frozenset(_CODES)  # what printable escapes: never shown raw
_VALUE = {code: _escape(code) for code in _CODES}
_LINES = {code: text for code, text in _VALUE.items() if code != 0x0A}
_SPACED = {code: text for code, text in _VALUE.items() if code not in (0x09, 0x0A, 0x0D)}
# In a JSON document C0 controls are escaped by every encoder already.
_JSON: dict[int, str] = {}
_JSON_FOUND: list[Any] = []  # the compiled class of _JSON's characters, on first use
_COMMAND = "::"  # a workflow command at the start of a line


def printable(text: str) -> str:
    """One value as shown in a line of human output: nothing a terminal acts on (a line
    start is the stream's to guard: ``Guarded``), no name that looks like another."""
    out = text.translate(_VALUE)
    return out if out.isascii() else _mark_lookalikes(out)


def visible(text: str) -> str:
    """A value of the HTML report or a CSV cell: as ``printable``, tab and newlines kept."""
    out = text.translate(_SPACED)
    return out if out.isascii() else _mark_lookalikes(out)


def json_text(document: str) -> str:
    """A serialized JSON document with invisible, bidirectional and line-breaking
    characters, and letters that look like Latin ones, as ``\\uXXXX`` escapes (the
    same values once parsed)."""
    if document.isascii():
        return document
    if not _JSON:  # on first use
        import re

        from .confusables import CONFUSABLE

        codes = [code for code in _CODES if code >= 0x7F] + [ord(c) for c in CONFUSABLE]
        _JSON.update({code: _json_escape(code) for code in codes})
        ascii_codes = "".join(re.escape(chr(c)) for c in sorted(_JSON) if c < 0x80)
        _JSON_FOUND.append(re.compile(f"[{ascii_codes}\x80-\U0010ffff]+"))
    # Only the runs that may hold an escape are translated: a table's JSON is megabytes of
    # ASCII with a few marks ("…"), which translate() would walk a character at a time.
    return _JSON_FOUND[0].sub(lambda found: found.group().translate(_JSON), document)


def _mark_lookalikes(text: str) -> str:
    """Letters of another script that look like Latin ones, escaped inside a word
    (a run of letters) that holds Latin letters too: ``АMD`` (Cyrillic А) is
    ``\\u0410MD``. A word all in one script (Cyrillic, Chinese) stays as written."""
    from .confusables import CONFUSABLE, is_latin

    if CONFUSABLE.keys().isdisjoint(text):  # nothing to escape: the text as it is
        return text
    out: list[str] = []
    word: list[str] = []
    for char in [*text, " "]:
        if char.isalpha():
            word.append(char)
            continue
        if word:
            mixed = any(is_latin(c) for c in word) and any(c in CONFUSABLE for c in word)
            out.extend(_escape(ord(c)) if mixed and c in CONFUSABLE else c for c in word)
            word = []
        out.append(char)
    return "".join(out[:-1])


class _Shown:
    """A value formatted into a human line: as the template asks, then ``printable``."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        return printable(format(self.value, spec))

    def __str__(self) -> str:
        return printable(str(self.value))

    def __repr__(self) -> str:
        return printable(repr(self.value))


def human(template: str, *values: Any, **named: Any) -> str:
    """A line (or lines) of human output: ``template`` is the tool's own text, its line
    feeds are the only ones; every value formatted into it (``{}``, ``{name:.2f}``) is
    ``printable``, so a folder name holding a line feed stays on its line. Every
    human writer interpolates through this (``tests/test_hostile_names.py`` lints it)."""
    return template.format(*map(_Shown, values), **{k: _Shown(v) for k, v in named.items()})


def printable_lines(text: str) -> str:
    """Several lines of human output: as ``printable``, newlines kept."""
    lines = text.translate(_LINES).split("\n")
    if not all(line.isascii() for line in lines):
        lines = [_mark_lookalikes(line) for line in lines]
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
    """A CSV cell a spreadsheet opens as data, never as a formula (OWASP); text as
    ``visible`` shows it (a spreadsheet draws bidirectional overrides, hides zero-width
    characters)."""
    if not isinstance(value, str):
        return value
    if not value.isascii() or not value.isprintable():
        value = visible(value)
    if value.startswith(_FORMULA) and not _is_number(value):
        return "'" + value
    return value


def csv_row(values: Iterable[Any]) -> list[Any]:
    """``csv_cell`` of each value; plain ASCII text and numbers pass without the call
    (an audit's tables hold millions of cells)."""
    return [
        csv_cell(v)
        if isinstance(v, str) and (not v.isascii() or not v.isprintable() or v.startswith(_FORMULA))
        else v
        for v in values
    ]


def _is_number(text: str) -> bool:
    if not set(text) <= _NUMBER_CHARS:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True
