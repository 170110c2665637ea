"""Fill the generated tables of README.md and docs/*.md from the registries.

    python scripts/docs_tables.py          # rewrite every stale region in place
    python scripts/docs_tables.py --check  # exit 1 naming each stale file (tests do this)

A generated region is a table between two marker lines:

    <!-- generated: NAME [ARG ...] -->
    | ... |
    <!-- end generated -->

NAME is one of ``TABLES`` below: the codes of a family from the rule table
(``mllog_check/catalog.py``), the audit's anomaly kinds, the firings of the checks
beyond the official tools (``tests/data/beyond_firings.yaml``, scripts/beyond_firings.py),
the output formats (``mllog_check.reporters`` and ``reporters.tables``) and the rounds
(``schemas/rounds.yaml``). Prose never repeats what a table holds: it links to the table.
So a new code, format or round changes its own files, its tests and these tables, made
again by this script (scripts/new_round.py runs it; tests/test_docs_tables.py fails
while a region is stale).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
START = re.compile(r"^<!-- generated: ([\w-]+)((?: [\w.-]+)*) -->\n", re.M)
END = "<!-- end generated -->\n"


def _cell(text: str) -> str:
    """Text as one table cell: one line, its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _codes_page(doc: str) -> str:
    """docs/codes.md as a link from ``doc`` (a path relative to the repository)."""
    return "codes.md" if doc.startswith("docs/") else "docs/codes.md"


def _code_link(info: Any, doc: str) -> str:
    return f"[{info.code}]({_codes_page(doc)}#{info.anchor})"


def codes_table(doc: str, *prefixes: str) -> list[str]:
    """Every registered code of the families ``prefixes`` (MLP, MLS, ...): its name,
    severity (``*``: beyond the official tools, an error with --strict; ``preview``:
    shown only with --preview) and what it reports, linked to its docs/codes.md section."""
    from mllog_check import catalog

    lines = ["| code | name | severity | what it reports |", "| --- | --- | --- | --- |"]
    for info in catalog.all_rules():
        if not info.code.startswith(prefixes):
            continue
        severity = f"{info.severity}{'*' if info.beyond else ''}"
        severity += ", preview" if info.preview else ""
        name = f"`{info.name}`"
        lines.append(f"| {_code_link(info, doc)} | {name} | {severity} | {_cell(info.summary)} |")
    return lines


def anomalies_table(doc: str) -> list[str]:
    """The audit's anomaly kinds (MLA): kind, code, its default severity in the audit
    (``submission/impact.py``: a known habit lowers one to info), what it reports and
    the codes of other stages the audit shows as that kind."""
    from mllog_check import catalog
    from mllog_check.submission.impact import DEFAULTS, RULES

    lines = [
        "| kind | code | severity | what it reports | shown from |",
        "| --- | --- | --- | --- | --- |",
    ]
    for info in catalog.all_rules():
        if info.family != "MLA":
            continue
        shown = ", ".join(f"`{c}`" for c in info.audits)
        cells = [
            f"`{info.name}`",
            _code_link(info, doc),
            DEFAULTS.get(info.name, RULES),
            _cell(info.summary),
            shown,
        ]
        lines.append(("| " + " | ".join(cells)).rstrip() + " |")
    return lines


def beyond_table(doc: str) -> list[str]:
    """Every check beyond the official tools with its lifecycle, its firings per round
    of the corpus (tests/data/beyond_firings.yaml) and the read of what it fires on
    (tests/data/beyond_reads.yaml: true, defensible or false; a stable code that fires
    has one)."""
    from beyond_firings import DATA, READS, load, load_reads

    from mllog_check import catalog

    data, reads = load(DATA), load_reads(READS)
    rounds = sorted(data)
    lines = [
        "| code | name | lifecycle | firings | per round | read |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for info in catalog.all_rules():
        if not info.beyond:
            continue
        counts = [(name, data[name].get(info.code)) for name in rounds]
        fired = [f"{name} {count}" for name, count in counts if count]
        total = sum(count or 0 for _, count in counts)
        where = ", ".join(fired) if fired else f"0 in each of the {len(rounds)} rounds"
        if any(count is None for _, count in counts):
            where, total_text = "not counted yet: python scripts/beyond_firings.py", "?"
        else:
            total_text = str(total)
        read = reads.get(info.code, "no firing to read" if not total else "")
        row = [_code_link(info, doc), f"`{info.name}`", info.lifecycle, total_text, where, read]
        lines.append(("| " + " | ".join(row)).rstrip() + " |")
    return lines


def formats_table(doc: str) -> list[str]:
    """Every output format of the three registries and the commands that offer it."""
    from mllog_check import reporters
    from mllog_check.reporters import records, tables

    lines = [
        "| format | `--format` | writes | offered by |",
        "| --- | --- | --- | --- |",
    ]
    for name, fmt in reporters.FORMATS.items():
        commands = ", ".join(f"`{c}`" for c in fmt.commands)
        lines.append(f"| {fmt.label} | `{name}` | problems (`reporters.FORMATS`) | {commands} |")
    for name, table in tables.FORMATS.items():
        commands = ", ".join(f"`{c}`" for c in table.commands)
        label = table.label or name
        what = "tables (`reporters.tables.FORMATS`)" + (", binary" if table.binary else "")
        lines.append(f"| {label} | `{name}` | {what} | {commands} |")
    for name, record_format in records.FORMATS.items():
        what = "records (`reporters.records.FORMATS`)"
        lines.append(f"| {record_format.label} | `{name}` | {what} | `parse` |")
    return lines


def _runs(rnd: Any, name: str) -> str:
    """'unet3d 40 (drop 4)': a benchmark's runs and, when not 1, its drop."""
    bench = rnd.benchmarks[name]
    return f"{name} {bench.runs}" + (f" (drop {bench.drop})" if bench.drop != 1 else "")


def _changes(rnd: Any, before: Any | None) -> str:
    """Every benchmark of the first round; then 'as v6.1', or what the round's benchmarks
    change from the round before ('− a, b; + c 10'). Names sorted: the registry's order
    depends on whether it was read from YAML or its prepared copy."""
    new = rnd.benchmarks or {}
    if before is None:
        return ", ".join(_runs(rnd, name) for name in sorted(new))
    old = before.benchmarks or {}
    gone = sorted(name for name in old if name not in new)
    came = [_runs(rnd, name) for name in sorted(new) if name not in old]
    parts = [f"− {', '.join(gone)}" if gone else "", f"+ {', '.join(came)}" if came else ""]
    return "; ".join(p for p in parts if p) or f"as {before.folder}"


def rounds_table(doc: str, usage: str = "training") -> list[str]:
    """Every round of the registry of one usage (training, hpc), oldest first: its
    publication date, the data this build has for it, its run count and benchmarks
    (each round as what it changes from the round before)."""
    from mllog_check.rounds import all_rounds

    chosen = [r for r in all_rounds() if r.is_hpc == (usage == "hpc")]
    lines = [
        "| round | published | rules | scoring | RCP data | run count | benchmarks: runs (drop "
        "when not 1), what changes from the round before |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    before = None
    for rnd in chosen:
        files = rnd.files
        rcp = files.get("rcp")
        cells = [
            rnd.folder,
            rnd.published or "no date",
            "yes" if files.get("rules") is not None else "none",
            "yes" if files.get("scoring") is not None else "none",
            rcp.stem if rcp is not None else "none",
            rnd.run_count,
            _changes(rnd, before) if rnd.benchmarks is not None else "not known",
        ]
        lines.append("| " + " | ".join(cells) + " |")
        if rnd.benchmarks is not None:
            before = rnd
    return lines


TABLES: dict[str, Callable[..., list[str]]] = {
    "codes": codes_table,
    "anomalies": anomalies_table,
    "beyond-firings": beyond_table,
    "formats": formats_table,
    "rounds": rounds_table,
}


def regions(text: str) -> list[tuple[int, int, str, list[str]]]:
    """Each region of ``text``: where its lines start and end, its name and arguments."""
    found = []
    for start in START.finditer(text):
        end = text.find(END, start.end())
        if end < 0:
            raise LookupError(f"no {END.strip()} after {start[0].strip()}")
        found.append((start.end(), end, start[1], start[2].split()))
    return found


def rewrite(doc: str, text: str) -> str:
    """``text`` (the file ``doc``, relative to the repository) with every region filled."""
    out, at = [], 0
    for begin, end, name, args in regions(text):
        if name not in TABLES:
            raise LookupError(f"{doc}: no generated table is named {name!r} ({sorted(TABLES)})")
        out += [text[at:begin], "\n".join(TABLES[name](doc, *args)) + "\n"]
        at = end
    return "".join(out) + text[at:]


def files() -> list[str]:
    """The files that hold a region, relative to the repository."""
    candidates = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [
        str(p.relative_to(ROOT)) for p in candidates if START.search(p.read_text(encoding="utf-8"))
    ]


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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which are stale")
    args = parser.parse_args()
    if args.check:
        found = stale()
        for name in found:
            print(
                f"stale generated tables: {name} (python scripts/docs_tables.py)", file=sys.stderr
            )
        return 1 if found else 0
    for name in write():
        print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # beyond_firings
    sys.exit(main())
