"""Add a round: its registry entry and empty change files, inheriting another round.

    python scripts/new_round.py 6.2.0 --from 6.1.0

appends to schemas/rounds.yaml an entry for 6.2.0 with 6.1.0's syntax generation, run
count rule, benchmarks and results-table columns (``summary_columns``, which
``mllog-check summarize`` writes), and writes the round's data files, each stating no change
yet (docs/rounds.md, "Round data: one inheritance"):

- schemas/rules/training-6.2.0.yaml    ``extends: training-6.1.0``
- schemas/scoring/v6.2.yaml            ``extends: v6.1``
- schemas/rcp/training_6.2.0.json      ``"extends": "6.1.0"``
- schemas/system_description/v6.2.json ``"extends": "v6.1"``

then rewrites what is generated from them: schemas/prepared/ (scripts/prepare_data.py),
docs/rules.md (scripts/rules_docs.py) and the generated tables of the docs (the rounds:
scripts/docs_tables.py). The test suite passes as it is after this; edit the entry
and the files to state what the new round changes (a benchmark added: its run count in
the registry and ``summary_columns``, its rules, its quality target, its reference
convergence points; docs/rounds.md, "Adding a round").
A kind of data the source round does not have (null in the registry) stays null.

Every path is this repository's (the folder above scripts/): the script refuses to run
when the mllog_check package Python imports, or its schemas, are another checkout's (an
editable install of another clone would otherwise get the data and this one the docs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mllog_check import rounds

ROOT = Path(__file__).resolve().parents[1]
# Fields of the source round's entry the new round starts from. Dates, spellings and
# file overrides belong to a round alone and are not copied.
# summary_columns before benchmarks: benchmarks stay the entry's last field, so a new
# benchmark is a line added at its end.
INHERITED = ("usage", "summary_columns", "generation", "run_count", "benchmarks")


class NewRoundError(Exception):
    """The round cannot be added (exists already, unknown source, registry not as expected)."""


def entry_text(version: str, source: dict[str, object], source_version: str) -> str:
    """The registry entry of the new round, in the registry's own style."""
    import yaml

    entry: dict[str, object] = {"version": version}
    entry.update({k: source[k] for k in INHERITED if k in source})
    files = source.get("files")
    if isinstance(files, dict):  # kinds the source round has none of stay absent
        nulls = {k: None for k, v in files.items() if v is None}
        if nulls:
            entry["files"] = nulls
    columns = entry.pop("summary_columns", None)
    body = yaml.safe_dump([entry], sort_keys=False, default_flow_style=False, width=88)
    lines = [("  " + line) if line else line for line in body.splitlines()]
    if columns:  # one line, as the registry writes it (the official summarizer's order)
        flow = yaml.safe_dump(columns, default_flow_style=True, width=10**6).strip()
        lines.insert(1, f"    summary_columns: {flow}")
    lines.insert(
        1, f"    # Added by scripts/new_round.py from {source_version}: state the changes here."
    )
    return "\n" + "\n".join(lines) + "\n"


def data_files(new: rounds.Round, old: rounds.Round) -> dict[Path, str]:
    """The new round's data files: each extends the source round's and changes nothing."""
    out: dict[Path, str] = {}
    note = f"{new.folder}: changes from {old.folder} (none yet; scripts/new_round.py)."
    kinds = {
        "rules": f"# {note}\nruleset: {new.ruleset}\nextends: {old.ruleset}\n",
        "scoring": (
            f"# {note}\nextends: {old.folder}\nround: {new.folder}\nruleset: {new.version}\n"
        ),
        "rcp": json.dumps(
            {"$comment": note, "ruleset": new.version, "extends": old.version}, indent=1
        )
        + "\n",
        "system_description": json.dumps(
            {
                "$comment": note,
                "title": f"MLPerf Training system description, {new.folder}",
                "extends": old.folder,
            },
            indent=1,
        )
        + "\n",
    }
    for kind, text in kinds.items():
        path = new.files.get(kind)
        if path is None or not old.has(kind):
            continue
        if path.exists():
            raise NewRoundError(f"{path} exists already")
        out[path] = text
    return out


def own_package(root: Path = ROOT) -> None:
    """Refuse unless the mllog_check imported, and the schemas it reads, are ``root``'s."""
    import mllog_check
    from mllog_check.prepared import schemas_dir

    for name, found, wanted in (
        ("package", Path(mllog_check.__file__).resolve().parent, root / "mllog_check"),
        ("schemas", schemas_dir().resolve(), root / "schemas"),
    ):
        if found != wanted.resolve():
            raise NewRoundError(
                f"the mllog_check {name} imported is {found}, not this repository's ({wanted}):"
                f" install this checkout (pip install -e {root}) or run with PYTHONPATH={root}"
            )


def add_round(version: str, source_name: str, schemas: Path | None = None) -> list[Path]:
    """Add the round to the registry in ``schemas`` (this repository's by default) and write
    its data files; the files written. The prepared data and docs are left to ``main``."""
    folder = schemas or ROOT / "schemas"
    registry_path = folder / "rounds.yaml"
    registry = rounds.load_registry(registry_path)
    old = registry.get(source_name)
    if registry.find(version) is not None:
        raise NewRoundError(f"round {version} is in the registry already")
    if len(version.split(".")) != 3 or not all(p.isdigit() for p in version.split(".")):
        raise NewRoundError(f"a round version is three numbers, e.g. 6.2.0: {version!r}")
    raw = rounds.read_registry_file(registry_path)
    (source,) = [e for e in raw["rounds"] if str(e.get("version")) == old.version]
    text = registry_path.read_text(encoding="utf-8")
    if not text.rstrip().splitlines()[-1].startswith(" "):
        raise NewRoundError(f"{registry_path}: the rounds list is not its last entry")
    registry_path.write_text(
        text.rstrip("\n") + "\n" + entry_text(version, source, old.version), encoding="utf-8"
    )
    new = rounds.load_registry(registry_path).get(version)
    written = data_files(new, old)
    for path, content in written.items():
        path.write_text(content, encoding="utf-8")
    return [registry_path, *written]


def regenerate() -> None:
    """Rewrite everything generated from the registry and the data files."""
    import docs_tables
    import prepare_data
    import rules_docs

    rounds.reload()
    folder = ROOT / "schemas" / "prepared"
    for name, data in prepare_data.build().items():
        (folder / name).write_bytes(data)
    rules_docs.write(ROOT / "docs" / "rules.md")
    docs_tables.write()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the new round, e.g. 6.2.0")
    parser.add_argument("--from", dest="source", required=True, help="the round it inherits")
    args = parser.parse_args()
    try:
        own_package()
        written = add_round(args.version, args.source)
    except (NewRoundError, rounds.RoundError, rounds.RegistryError) as err:
        print(f"new_round: {err}", file=sys.stderr)
        return 2
    regenerate()
    for path in written:
        print(f"wrote {path}")
    print("regenerated schemas/prepared/, docs/rules.md and the docs' generated tables")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
