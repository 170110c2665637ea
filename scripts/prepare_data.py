"""Write schemas/prepared/: the round registry, every shipped ruleset and the evaluation
schedules as checked JSON.

    python scripts/prepare_data.py          # rewrite the prepared files
    python scripts/prepare_data.py --check  # exit 1 when one is stale (tests do this)

A single-file check reads these instead of parsing YAML and validating the rules at run
time (mllog_check/prepared.py); a prepared file whose sources changed is ignored until
this script runs again. Run it after editing schemas/rounds.yaml, schemas/rules/,
schemas/cadence/ or schemas/scoring/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mllog_check.prepared import VALIDATED, document, fingerprint, prepared_dir, schemas_dir
from mllog_check.results import cadence
from mllog_check.rounds import load_registry, read_registry_file
from mllog_check.rules.loader import resolve_with_sources


def _relative(source: str) -> str:
    """'rules/training-6.1.0.yaml', 'rounds.yaml#6.1.0': a source under schemas/."""
    path, mark, part = source.partition("#")
    return Path(path).resolve().relative_to(schemas_dir().resolve()).as_posix() + mark + part


def build() -> dict[str, bytes]:
    """File name -> content of every prepared file. Each depends on its own sources only
    (a ruleset: its rule files and its round's registry entry), so that a change to one
    round rewrites that round's files and the registry's."""
    source = schemas_dir() / "rounds.yaml"
    raw = read_registry_file(source)
    out = {"rounds.json": document(raw, ["rounds.yaml"])}
    for rnd in load_registry(source).rounds:
        path = rnd.path("rules")
        if path is None or not path.resolve().is_relative_to(schemas_dir().resolve()):
            continue
        data, sources = resolve_with_sources(rnd.ruleset)
        out[f"{rnd.ruleset}.json"] = document(data, [_relative(p) for p in sources], raw)
    # The evaluation schedules with each benchmark's quality key (check judges one log).
    keys, scoring = cadence.resolve_keys()
    table = {"rounds": cadence.resolve_table(), "keys": keys}
    out[f"{cadence.PREPARED}.json"] = document(table, [cadence.SOURCE, *scoring])
    out[f"{VALIDATED}.json"] = document(validated_files(), [])
    return out


# Each shipped data kind validated at run time by datafiles.validate: (files, schema).
VALIDATED_KINDS = (
    ("rcp/*_*.json", "rcp/rcp.schema.json"),
    ("scoring/*.yaml", "scoring/scoring.schema.json"),
    ("cadence/eval_cadence.yaml", "cadence/eval_cadence.schema.json"),
    ("models.yaml", "models.schema.json"),
    ("accelerators.yaml", "accelerators.schema.json"),
)


def validated_files() -> dict[str, dict[str, object]]:
    """Every shipped data file of VALIDATED_KINDS, validated here with jsonschema (a
    broken one stops the script), with its and its schema's fingerprints: run time skips
    the validation while both match (prepared.validated)."""
    from mllog_check.datafiles import check_schema, load_json, load_yaml

    root = schemas_dir()
    out: dict[str, dict[str, object]] = {}
    for pattern, schema in VALIDATED_KINDS:
        for path in sorted(root.glob(pattern)):
            relative = path.relative_to(root).as_posix()
            if relative == schema or path.name.startswith("t_critical"):
                continue  # the schema itself; the t table is read, not validated
            data = load_json(path) if path.suffix == ".json" else load_yaml(path)
            check_schema(data, root / schema, path)
            stamps = [fingerprint(relative), fingerprint(schema)]
            out[relative] = {"schema": schema, "stamps": stamps}
    return out


def stale() -> list[str]:
    """Prepared files that are missing, different or left over."""
    wanted = build()
    folder = prepared_dir()
    have = {p.name for p in folder.glob("*.json")} if folder.is_dir() else set()
    wrong = [n for n, data in wanted.items() if not (folder / n).is_file()
             or (folder / n).read_bytes() != data]  # fmt: skip
    return sorted(wrong + sorted(have - set(wanted)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args()
    from new_round import NewRoundError, own_package  # this repository's data only

    try:
        own_package()
    except NewRoundError as err:
        print(f"prepare_data: {err}", file=sys.stderr)
        return 2
    if args.check:
        found = stale()
        for name in found:
            print(f"stale: schemas/prepared/{name}", file=sys.stderr)
        return 1 if found else 0
    folder = prepared_dir()
    folder.mkdir(exist_ok=True)
    wanted = build()
    for name in {p.name for p in folder.glob("*.json")} - set(wanted):
        (folder / name).unlink()
    for name, data in wanted.items():
        (folder / name).write_bytes(data)
    print(f"wrote {len(wanted)} files to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
