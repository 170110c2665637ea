"""Data prepared before run time: the round registry and every ruleset as checked JSON.

``schemas/prepared/<name>.json`` holds a data file already parsed, merged (a ruleset's
``extends`` chain) and validated against its schema, with a fingerprint (size and
CRC-32) of each source it came from: its rule files and, for rules that take the
round's benchmarks, that round's entry of the registry (not the whole registry, nor the
rules' JSON Schema, which ``scripts/prepare_data.py --check`` validates against), so
that adding or editing one round rewrites that round's files only. A single-file check
then reads one small JSON file instead of importing PyYAML and jsonschema and
validating the rules, and writes nothing anywhere. A fingerprint that no longer matches
its source (a rule file edited in a checkout) makes the reader fall back to the source
files, so the data used is always the data written; ``scripts/prepare_data.py``
rewrites the prepared files and ``tests/test_prepared.py`` fails while they are stale.
"""

from __future__ import annotations

import json
import zlib
from functools import cache
from pathlib import Path

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any


@cache
def schemas_dir() -> Path:
    """The shipped data folder (``mllog_check.schemas``), without importlib.resources."""
    import mllog_check.schemas

    return Path(mllog_check.schemas.__file__).parent


def prepared_dir() -> Path:
    return schemas_dir() / "prepared"


def fingerprint(relative: str, registry: Any = None) -> str:
    """'<size>:<crc32>' of a file under the schemas folder; of one round's entry of the
    registry for ``rounds.yaml#<version>`` (from ``registry``, the registry's data, else
    its prepared copy), so that a ruleset depends on its own round's entry only and
    adding a round leaves every other prepared file as it is."""
    name, _, version = relative.partition("#")
    if name != "rounds.yaml" or not version:
        data = (schemas_dir() / relative).read_bytes()
        return f"{len(data)}:{zlib.crc32(data):08x}"
    rounds = (registry if registry is not None else read("rounds") or {}).get("rounds") or []
    entries = [e for e in rounds if isinstance(e, dict) and e.get("version") == version]
    data = json.dumps(entries, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return f"{len(data)}:{zlib.crc32(data):08x}"


def read(name: str) -> Any | None:
    """The prepared data of ``name`` when every source still matches; None otherwise."""
    try:
        # json, not orjson: rule data holds Infinity (YAML .inf), which JSON lacks
        doc = json.loads((prepared_dir() / f"{name}.json").read_bytes())
        if all(fingerprint(source) == stamp for source, stamp in doc["sources"].items()):
            return doc["data"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


def document(data: Any, sources: list[str], registry: Any = None) -> bytes:
    """A prepared file's bytes: sorted keys, one item per line (a diff shows what changed),
    and the fingerprints of its sources (``registry``: the registry's data, for a source
    that is one round's entry)."""
    stamps = {s: fingerprint(s, registry) for s in sorted(set(sources))}
    text = json.dumps(
        {"sources": stamps, "data": data}, sort_keys=True, indent=1, ensure_ascii=False
    )
    return text.encode("utf-8") + b"\n"


# schemas/prepared/validated.json: each shipped data file scripts/prepare_data.py checked
# against its kind's JSON Schema, with both files' fingerprints; a file that still
# matches is not validated again at run time (jsonschema is then not even imported).
VALIDATED = "validated"


@cache
def _validated() -> dict[str, Any]:
    found = read(VALIDATED)
    return found if isinstance(found, dict) else {}


def validated(path: Path, schema: Path) -> bool:
    """Whether ``path``, a shipped data file, was found valid against ``schema`` when the
    prepared files were written, and neither file changed since."""
    root = schemas_dir().resolve()
    try:
        relative = path.resolve().relative_to(root).as_posix()
        against = schema.resolve().relative_to(root).as_posix()
    except (OSError, ValueError):
        return False
    entry = _validated().get(relative)
    if not isinstance(entry, dict) or entry.get("schema") != against:
        return False
    try:
        return entry.get("stamps") == [fingerprint(relative), fingerprint(against)]
    except OSError:
        return False
