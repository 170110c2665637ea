""" "Did you mean": the closest known names to a misspelled one (difflib)."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, known: Iterable[str], cutoff: float = 0.75) -> list[str]:
    """Known names close to word, best first (at most three); none for an exact match."""
    import difflib  # here: only a misspelling pays for it (the hook's start-up time)

    names = sorted({k for k in known if isinstance(k, str)})
    if word in names:
        return []
    return difflib.get_close_matches(word, names, n=3, cutoff=cutoff)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """' (did you mean "x"?)' (or '"x" or "y"'), or '' when nothing is close."""
    found = closest(word, known)
    if not found:
        return ""
    return " (did you mean " + " or ".join(f'"{name}"' for name in found) + "?)"
