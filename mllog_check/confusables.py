"""Letters drawn like Latin ones (docs/security.md): the one table ``safety`` escapes by
and ``lookalike`` compares names with; plain data, importing nothing of the project."""

from __future__ import annotations

import unicodedata

# Letter -> the Latin letter it is drawn like (TR39 confusables.txt, single letters).
_PAIRS = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Ԍ": "G", "Ꙇ": "I",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
    "і": "i", "ј": "j", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "ο": "o", "ν": "v", "α": "a", "ρ": "p", "ι": "i", "κ": "k", "υ": "u", "ϲ": "c",
    "ϳ": "j",
    # Armenian
    "Օ": "O", "Ս": "U", "Տ": "S", "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g",
    "զ": "q",
    # Latin letters drawn like other Latin ones
    "ı": "i", "ɑ": "a", "ʏ": "y", "ɩ": "i", "ɡ": "g",
}  # fmt: skip
CONFUSABLE: dict[str, str] = {k: v for k, v in _PAIRS.items() if k != v}


def is_latin(char: str) -> bool:
    """A Latin letter (ASCII or accented), not one of the look-alikes above."""
    if char.isascii():
        return char.isalpha()
    return char not in CONFUSABLE and unicodedata.name(char, "").startswith("LATIN ")
