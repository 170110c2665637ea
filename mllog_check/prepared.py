"""Data prepared before run time: the round registry and every ruleset as checked JSON.

``schemas/prepared/<name>.json`` holds a data file already parsed, merged (a ruleset's
``extends`` chain) and validated against its schema, with a fingerprint (size and
CRC-32) of each source file it came from. A single-file check then reads one small JSON
file instead of importing PyYAML and jsonschema and validating the rules, and writes
nothing anywhere. A fingerprint that no longer matches its source (a rule file edited
in a checkout) makes the reader fall back to the source files, so the data used is
always the data written; ``scripts/prepare_data.py`` rewrites the prepared files and
``tests/test_prepared.py`` fails while they are stale.
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


def fingerprint(relative: str) -> str:
    """'<size>:<crc32>' of a file under the schemas folder."""
    data = (schemas_dir() / relative).read_bytes()
    return f"{len(data)}:{zlib.crc32(data):08x}"


def read(name: str) -> Any | None:
    """The prepared data of ``name`` when every source still matches; None otherwise."""
    try:
        # json, not orjson: rule data holds Infinity (YAML .inf), which JSON lacks
        doc = json.loads((prepared_dir() / f"{name}.json").read_bytes())
        if all(fingerprint(source) == stamp for source, stamp in doc["sources"].items()):
            return doc["data"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def document(data: Any, sources: list[str]) -> bytes:
    """A prepared file's bytes (sorted keys, one line per file: stable in git)."""
    stamped = {"sources": {s: fingerprint(s) for s in sorted(set(sources))}, "data": data}
    text = json.dumps(stamped, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8") + b"\n"
