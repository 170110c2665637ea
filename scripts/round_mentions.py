"""Keep every mention of "the latest round", every list of rounds and every list of output
formats in the docs current.

    python scripts/round_mentions.py          # rewrite README.md and docs/*.md in place
    python scripts/round_mentions.py --check  # exit 1 when one is stale (tests do this)

README.md and docs/ say "every round from v0.6 to v6.1", draw the chain of rule files
(0.6 ← 0.7 ← 1.0 → 1.1 → …) and list the registry's rounds. Each such phrase is written
here once, as a pattern and the text the round registry (schemas/rounds.yaml) gives it;
so are the lists of output formats and the commands offering them (the registries
``reporters.FORMATS`` and ``reporters.tables.FORMATS``; a format's prose name is its
``label``; the first format of each registry is its human form, the others the machine
formats). scripts/new_round.py runs this after adding a round, and
tests/test_round_mentions.py fails while a phrase is stale. A phrase whose words already
say the right thing is left as wrapped.
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


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def format_values() -> dict[str, str]:
    """The lists of output formats the docs give, from the two registries."""
    from mllog_check import reporters
    from mllog_check.reporters import tables

    problems = list(reporters.FORMATS.values())
    table = [f.label or name for name, f in tables.FORMATS.items()]
    commands = list(dict.fromkeys(c for f in tables.FORMATS.values() for c in f.commands))
    machine = [f.label for f in problems[1:]] + [t for t in table[1:] if t not in {
        f.label for f in problems}]  # fmt: skip

    def choices(command: str) -> str:
        return "|".join(reporters.offered(command))

    def labels(command: str) -> list[str]:
        return [reporters.FORMATS[n].label for n in reporters.offered(command)]

    return {
        "problem_labels": ", ".join(f.label for f in problems),
        "check_labels": ", ".join(labels(reporters.CHECK)),
        "check_others": _and(labels(reporters.CHECK)[1:]),
        "check_choices": choices(reporters.CHECK),
        "package_choices": choices(reporters.PACKAGE),
        "audit_choices": choices(reporters.AUDIT),
        "table_labels": ", ".join(table),
        "table_commands": _and([f"`{c}`" for c in commands]),
        "machine_labels": ", ".join(machine),
    }


LABEL = r"[A-Za-z]+(?: annotations)?"
FORMAT_LISTS = {
    "problem_labels": rf"{LABEL}(?:,\s+{LABEL})*",
    "check_labels": rf"{LABEL}(?:,\s+{LABEL})*",
    "check_others": rf"{LABEL}(?:(?:,\s+|\s+and\s+){LABEL})*",
    "check_choices": r"[a-z]+(?:\|[a-z]+)*",
    "package_choices": r"[a-z]+(?:\|[a-z]+)*",
    "audit_choices": r"[a-z]+(?:\|[a-z]+)*",
    "table_labels": rf"{LABEL}(?:,\s+{LABEL})*",
    "table_commands": r"`\w+`(?:(?:,\s+|\s+and\s+)`\w+`)*",
    "machine_labels": rf"{LABEL}(?:,\s+{LABEL})*",
}

# Where each phrase is, as it reads with the registry's values in {braces}; the same
# words with any round (or format list) in place of a value find the phrase (across
# line breaks).
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
    ("README.md", "`package` also write {check_others}."),
    ("README.md", "the one registry of problem formats ({problem_labels}) of check"),
    ("README.md", "[--strict] [--format {check_choices}]"),
    ("README.md", "table formats of {table_commands} ({table_labels}), a registry"),
    ("docs/design.md", "machine formats ({machine_labels}) sit beside"),
    ("docs/design.md", "`reporters.FORMATS` ({problem_labels}) for"),
    ("docs/design.md", "`reporters.tables.FORMATS` ({table_labels}) for {table_commands};"),
    ("docs/follow.md", "in `--format` ({check_labels}): exactly"),
    ("docs/package.md", "[--format {package_choices}]"),
    ("docs/audit.md", "[--format {audit_choices}]"),
]
ANY_ROUND = {
    "latest": VERSION,
    "latest_version": VERSION,
    "rcp_first": VERSION,
    "rcp_last": VERSION,
    "chain": rf"0\.6 ← 0\.7 ← 1\.0(?:\s*→\s*{VERSION})+",
    "chain_from_2": rf"2\.0(?:\s*→\s*{VERSION})+",
    "listed": rf"0\.5\.0,(?:\s+{VERSION},)*\s+{VERSION}\s+and\s+{VERSION}",
    **FORMAT_LISTS,
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
        **format_values(),
    }


def pattern(phrase: str) -> str:
    """A regular expression finding the phrase whatever rounds it names."""
    parts = re.split(r"\{(\w+)\}", phrase)
    out = [
        ANY_ROUND[part] if i % 2 else re.escape(part).replace("\\ ", r"\s+")
        for i, part in enumerate(parts)
    ]
    return "".join(out)


def _rewrap(found: str, wanted: str) -> str:
    """``wanted`` with the line breaks ``found`` had, after the same number of words."""
    spaces = re.findall(r"\s+", found)
    words = wanted.split(" ")
    out = [words[0]]
    for i, word in enumerate(words[1:]):
        out.append(spaces[i] if i < len(spaces) and "\n" in spaces[i] else " ")
        out.append(word)
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
            text = text[: found.start()] + _rewrap(found[0], wanted) + text[found.end() :]
    return text


# docs/scores.md's table of rounds: one row per round with scoring data; its benchmarks
# (what they change from the round before), run-count and RCP columns come from the
# registry, the last column (what else changed: targets, units) is prose kept as written.
TABLE = "docs/scores.md"
ROW = re.compile(r"^\| (v\d+\.\d+(?:\.\d+)?) \| (.*?) \| (\w+) \| (\S+) \|(?:(.*)\|)?$", re.M)


def _bench(rnd: Any, name: str) -> str:
    """'unet3d 40 (drop 4)': a benchmark's runs and, when not 1, its drop."""
    bench = rnd.benchmarks[name]
    return f"{name} {bench.runs}" + (f" (drop {bench.drop})" if bench.drop != 1 else "")


def _changes(rnd: Any, before: Any | None) -> str:
    """Every benchmark of the first round; then 'as v6.1', or what the round's benchmarks
    change from the round before ('− a, b; + c 10'). Names sorted: the registry's order
    depends on whether it was read from YAML or its prepared copy."""
    new = rnd.benchmarks or {}
    if before is None:
        return ", ".join(_bench(rnd, name) for name in sorted(new))
    old = before.benchmarks or {}
    gone = sorted(name for name in old if name not in new)
    came = [_bench(rnd, name) for name in sorted(new) if name not in old]
    parts = [f"− {', '.join(gone)}" if gone else "", f"+ {', '.join(came)}" if came else ""]
    return "; ".join(p for p in parts if p) or f"as {before.folder}"


def rounds_table(text: str) -> str:
    """The table with a row for every Training round with scoring data, its registry
    columns current and its notes kept (the HPC rounds' table is in docs/hpc.md)."""
    scored = [r for r in all_rounds() if r.has("scoring") and not r.is_hpc]
    rows = list(ROW.finditer(text))
    if not rows:
        raise LookupError(f"{TABLE}: no table of rounds")
    notes = {m[1]: (m[5] or "").strip() for m in rows}
    lines = []
    for i, rnd in enumerate(scored):
        rcp = rnd.files.get("rcp")
        cells = [
            rnd.folder,
            _changes(rnd, scored[i - 1] if i else None),
            rnd.run_count,
            rcp.stem if rcp is not None else "none",
            notes.get(rnd.folder, ""),
        ]
        lines.append(("| " + " | ".join(cells)).rstrip() + " |")
    return text[: rows[0].start()] + "\n".join(lines) + text[rows[-1].end() :]


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
