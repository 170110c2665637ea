"""Names that look like other names: letters of another script that look like Latin
ones, invisible characters, compatibility forms (docs/security.md).

An org folder ``АMD`` (Cyrillic А) or ``AMD`` followed by a zero-width space ranks as
an org of its own and shows as "AMD". ``skeleton`` maps a name to what it looks like,
after Unicode's confusable-detection idea (https://www.unicode.org/reports/tr39/,
"Confusable Detection"): compatibility forms folded (NFKC: fullwidth ``ＡＭＤ``, ``ℓ``),
invisible, bidirectional and control characters dropped, and the letters of
``CONFUSABLE`` (the Cyrillic, Greek and Armenian letters drawn like Latin ones in
common fonts, a small table from TR39's confusables.txt) read as their Latin twins.
Two names with one skeleton that differ are look-alikes (MLA045); ``safety.printable``
escapes the table's letters inside a word that has Latin letters too.
"""

from __future__ import annotations

import unicodedata

from .confusables import CONFUSABLE
from .safety import HIDDEN


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, nothing invisible, look-alike letters as Latin."""
    folded = unicodedata.normalize("NFKC", name)
    shown = "".join(c for c in folded if ord(c) not in HIDDEN)
    return "".join(CONFUSABLE.get(c, c) for c in shown)


def lookalikes(names: list[str]) -> list[tuple[str, str]]:
    """(name, the one it looks like) for each name whose skeleton another name has: the
    plainest (ASCII first, then sorted) of each group is the one the others look like."""
    groups: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        groups.setdefault(skeleton(name), []).append(name)
    out: list[tuple[str, str]] = []
    for group in groups.values():
        if len(group) < 2:
            continue
        first, *others = sorted(group, key=lambda n: (not n.isascii(), n))
        out.extend((other, first) for other in others)
    return sorted(out)
