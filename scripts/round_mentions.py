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
from pathlib import Path
from typing import Any

from mllog_check.rounds import all_rounds, parse_round
from mllog_check.rules.loader import available_rulesets

ROOT = Path(__file__).resolve().parents[1]
VERSION = r"\d+\.\d+(?:\.\d+)?"


def training_rulesets() -> list[str]:
    """The Training rounds with compliance rules in this build, oldest first (the
    phrases below are about Training; docs/hpc.md names the HPC rounds)."""
    return [name for name in available_rulesets() if not parse_round(name).is_hpc]


def latest() -> str:
    """'6.1': the newest Training round with compliance rules in this build."""
    return parse_round(training_rulesets()[-1]).short


def rcp_rounds() -> tuple[str, str]:
    """The first and last round with RCP data ('1.0.0', '6.1.0')."""
    have = [r.version for r in all_rounds() if r.has("rcp") and not r.is_hpc]
    return have[0], have[-1]


def chain(start: str = "0.6") -> str:
    """The rule files' chain from round ``start``: '0.6 ← 0.7 ← 1.0 → 1.1 → … → 6.1'
    (1.0.0 is the base; older rounds extend the one after them)."""
    names = [parse_round(n).short for n in training_rulesets()]
    names = names[names.index(start) :]
    base = names.index("1.0") if "1.0" in names else -1
    older = " ← ".join(names[: base + 1])
    newer = " → ".join(names[base + 1 :])
    return " → ".join(p for p in (older, newer) if p)


def listed() -> str:
    """'0.5.0, 0.6.0, …, 6.0.0 and 6.1.0': the registry's Training rounds (the HPC rounds
    are listed in docs/hpc.md)."""
    versions = [r.version for r in all_rounds() if not r.is_hpc]
    return ", ".join(versions[:-1]) + f" and {versions[-1]}"


# Where each phrase is, as it reads with the registry's values in {braces}; the same
# words with any round in place of a value find the phrase (across line breaks).
PHRASES: list[tuple[str, str]] = [
    ("README.md", "every round from v0.6 to v{latest}"),
    ("README.md", "Every round from v0.5 to v{latest}"),
    ("README.md", "{chain}"),
    ("README.md", "reference convergence points through v{latest}"),
    ("README.md", "|0.6.0|…|{latest_version}|v5.1]"),
    ("docs/differences.md", "## Rounds v2.1–v{latest}"),
    ("docs/differences.md", "`training-2.1.0` … `-{latest_version}`"),
    ("docs/differences.md", "{chain_from_2}"),
    ("docs/rounds.md", "Rounds {listed} are listed"),
    ("docs/scores.md", "rounds with reference data (v1.0 to v{latest})"),
    ("docs/scores.md", "`schemas/rcp/training_<ruleset>.json` ({rcp_first} to {rcp_last})"),
    ("docs/package.md", "v2.1 to v{latest} keep the 33 keys"),
]
ANY_ROUND = {
    "latest": VERSION,
    "latest_version": VERSION,
    "rcp_first": VERSION,
    "rcp_last": VERSION,
    "chain": rf"0\.6 ← 0\.7 ← 1\.0(?:\s*→\s*{VERSION})+",
    "chain_from_2": rf"2\.0(?:\s*→\s*{VERSION})+",
    "listed": rf"0\.5\.0,(?:\s+{VERSION},)*\s+{VERSION}\s+and\s+{VERSION}",
}


def values() -> dict[str, str]:
    first, last = rcp_rounds()
    return {
        "latest": latest(),
        "latest_version": parse_round(latest()).version,
        "rcp_first": first,
        "rcp_last": last,
        "chain": chain(),
        "chain_from_2": chain("2.0"),
        "listed": listed(),
    }


def pattern(phrase: str) -> str:
    """A regular expression finding the phrase whatever rounds it names."""
    parts = re.split(r"\{(\w+)\}", phrase)
    out = [
        ANY_ROUND[part] if i % 2 else re.escape(part).replace("\\ ", r"\s+")
        for i, part in enumerate(parts)
    ]
    return "".join(out)


def _same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


def rewrite(relative: str, text: str) -> str:
    """The file's text with each of its phrases as the registry gives it."""
    if relative == TABLE:
        text = rounds_table(text)
    given = values()
    for name, phrase in PHRASES:
        if name != relative:
            continue
        wanted = phrase.format(**given)
        found = re.search(pattern(phrase), text)
        if found is None:
            raise LookupError(f"{relative}: no phrase reads {phrase!r}: update PHRASES")
        if not _same_words(found[0], wanted):  # keep a current phrase's line breaks
            text = text[: found.start()] + wanted + text[found.end() :]
    return text


# docs/scores.md's table of rounds: one row per round with scoring data; its run-count
# and RCP columns come from the registry, the changes column is prose (a new round's row
# says which benchmarks come and go, from the registry).
TABLE = "docs/scores.md"
ROW = re.compile(r"^\| (v\d+\.\d+(?:\.\d+)?) \| (.*) \| (\w+) \| (\S+) \|$", re.M)


def _changes(rnd: Any, before: Any) -> str:
    """'as v6.1', or what the round's benchmarks change from the round before."""
    old, new = set(before.benchmarks or {}), rnd.benchmarks or {}
    gone = sorted(old - set(new))
    came = [f"{name} {new[name].runs}" for name in sorted(set(new) - old)]
    parts = [f"− {', '.join(gone)}" if gone else "", f"+ {', '.join(came)}" if came else ""]
    return "; ".join(p for p in parts if p) or f"as {before.folder}"


def rounds_table(text: str) -> str:
    """The table with a row for every Training round with scoring data and registry
    columns (the HPC rounds' table is in docs/hpc.md)."""
    scored = [r for r in all_rounds() if r.has("scoring") and not r.is_hpc]
    rows = {m[1]: m for m in ROW.finditer(text)}
    if not rows:
        raise LookupError(f"{TABLE}: no table of rounds")
    added = []
    for i, rnd in enumerate(scored):
        rcp = rnd.files.get("rcp")
        columns = f"| {rnd.run_count} | {rcp.stem if rcp is not None else 'none'} |"
        found = rows.get(rnd.folder)
        if found is None:
            before = scored[i - 1] if i else rnd
            added.append(f"| {rnd.folder} | {_changes(rnd, before)} {columns}")
        elif not found[0].endswith(columns):
            text = text.replace(found[0], f"| {rnd.folder} | {found[2]} {columns}", 1)
    if added:
        end = max(ROW.finditer(text), key=lambda m: m.end()).end()
        text = text[:end] + "".join("\n" + line for line in added) + text[end:]
    return text


def files() -> list[str]:
    """The files this script rewrites, relative to the repository."""
    return sorted({p[0] for p in PHRASES})


def stale() -> list[str]:
    return [
        name
        for name in files()
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
