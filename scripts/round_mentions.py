"""Keep every mention of "the latest round" and every list of rounds in the docs current.

    python scripts/round_mentions.py          # rewrite README.md and docs/*.md in place
    python scripts/round_mentions.py --check  # exit 1 when one is stale (tests do this)

README.md and docs/ say "every round from v0.6 to v6.1", draw the chain of rule files
(0.6 ← 0.7 ← 1.0 → 1.1 → …) and list the registry's rounds. Each such phrase is written
here once, as a pattern and the text the round registry (schemas/rounds.yaml) gives it;
scripts/new_round.py runs this after adding a round, and tests/test_new_round.py fails
while a phrase is stale. A phrase whose words already say the right thing is left as
wrapped.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from mllog_check.rounds import all_rounds, parse_round
from mllog_check.rules.loader import available_rulesets

ROOT = Path(__file__).resolve().parents[1]
VERSION = r"\d+\.\d+(?:\.\d+)?"


def latest() -> str:
    """'6.1': the newest round with compliance rules in this build."""
    return parse_round(available_rulesets()[-1]).short


def rcp_rounds() -> tuple[str, str]:
    """The first and last round with RCP data ('1.0.0', '6.1.0')."""
    have = [r.version for r in all_rounds() if r.has("rcp")]
    return have[0], have[-1]


def chain(start: str = "0.6") -> str:
    """The rule files' chain from round ``start``: '0.6 ← 0.7 ← 1.0 → 1.1 → … → 6.1'
    (1.0.0 is the base; older rounds extend the one after them)."""
    names = [parse_round(n).short for n in available_rulesets()]
    names = names[names.index(start) :]
    base = names.index("1.0") if "1.0" in names else -1
    older = " ← ".join(names[: base + 1])
    newer = " → ".join(names[base + 1 :])
    return " → ".join(p for p in (older, newer) if p)


def listed() -> str:
    """'0.5.0, 0.6.0, …, 6.0.0 and 6.1.0': the registry's rounds."""
    versions = [r.version for r in all_rounds()]
    return ", ".join(versions[:-1]) + f" and {versions[-1]}"


# (file, pattern, the text the registry gives it). Patterns match the phrase whatever
# round it names now, so a stale one is found and rewritten.
PHRASES: list[tuple[str, str, Callable[[], str]]] = [
    ("README.md", rf"every round from v0\.6 to v{VERSION}", lambda: f"every round from v0.6 to v{latest()}"),
    ("README.md", rf"Every round from v0\.5 to v{VERSION}", lambda: f"Every round from v0.5 to v{latest()}"),
    ("README.md", rf"0\.6 ← 0\.7 ← 1\.0(?:\s*→\s*{VERSION})+", chain),
    ("README.md", rf"reference convergence points through v{VERSION}", lambda: f"reference convergence points through v{latest()}"),
    ("README.md", rf"\|0\.6\.0\|…\|{VERSION}\|v5\.1\]", lambda: f"|0.6.0|…|{latest()}.0|v5.1]"),
    ("docs/differences.md", rf"## Rounds v2\.1–v{VERSION}", lambda: f"## Rounds v2.1–v{latest()}"),
    ("docs/differences.md", rf"`training-2\.1\.0` … `-{VERSION}`", lambda: f"`training-2.1.0` … `-{latest()}.0`"),
    ("docs/differences.md", rf"2\.0(?:\s*→\s*{VERSION})+", lambda: chain("2.0")),
    ("docs/rounds.md", rf"Rounds 0\.5\.0,(?:\s+{VERSION},)*\s+{VERSION}\s+and\s+{VERSION} are listed", lambda: f"Rounds {listed()} are listed"),
    ("docs/scores.md", rf"rounds with reference data \(v1\.0 to v{VERSION}\)", lambda: f"rounds with reference data (v1.0 to v{latest()})"),
    ("docs/scores.md", rf"`schemas/rcp/training_<ruleset>\.json` \(1\.0\.0 to {VERSION}\)", lambda: "`schemas/rcp/training_<ruleset>.json` ({} to {})".format(*rcp_rounds())),
    ("docs/package.md", rf"v2\.1 to v{VERSION} keep the 33 keys", lambda: f"v2.1 to v{latest()} keep the 33 keys"),
]  # fmt: skip


def _same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


def rewrite(relative: str, text: str) -> str:
    """The file's text with each of its phrases as the registry gives it."""
    for name, pattern, make in PHRASES:
        if name != relative:
            continue
        wanted = make()
        found = re.search(pattern, text)
        if found is None:
            raise LookupError(f"{relative}: no phrase matches {pattern!r}: update PHRASES")
        if not _same_words(found[0], wanted):  # keep a current phrase's line breaks
            text = text[: found.start()] + wanted + text[found.end() :]
    return text


def stale() -> list[str]:
    return [
        name
        for name in sorted({p[0] for p in PHRASES})
        if rewrite(name, (ROOT / name).read_text(encoding="utf-8"))
        != (ROOT / name).read_text(encoding="utf-8")
    ]


def write() -> list[str]:
    changed = stale()
    for name in changed:
        path = ROOT / name
        path.write_text(rewrite(name, path.read_text(encoding="utf-8")), encoding="utf-8")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether they are current")
    args = parser.parse_args()
    if args.check:
        found = stale()
        for name in found:
            print(f"stale round mentions: {name}", file=sys.stderr)
        return 1 if found else 0
    for name in write():
        print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
