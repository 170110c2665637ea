"""Reading the project's data files (round registry, rules, scoring, RCP, system schemas).

YAML and JSON both keep the last of two equal keys in one mapping without a word, so
a rule file that states ``checks:`` twice for one key silently loses a check. Every
data file is read here, where a repeated key is an error naming the file, line and key
(as yamllint's ``key-duplicates`` rule and check-jsonschema's strict reading do).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import DataError, ReadError

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    # A mapping as read from a YAML, JSON or TOML file, before its kind's checks: untyped.
    Document = dict[str, Any]


class DataFileError(DataError, ValueError):
    """A data file that cannot be read, is not valid YAML/JSON or repeats a key."""


def load_yaml(path: Path) -> Any:
    """A YAML data file's content (safe loading: plain data only, bounded as every YAML a
    user may hand the tool: ``yamlsafe``); DataFileError when it cannot be read or parsed,
    or a mapping repeats a key."""
    from .yamlsafe import YamlError, load

    try:
        return load(read_text(path))
    except (OSError, ValueError, YamlError) as err:
        raise DataFileError(f"{path}: {err}") from None


# A data file a user may name ($MLLOG_CHECK_ROUNDS, a rule file's data, pyproject.toml)
# is read only when regular and at most this long; the shipped ones are under 1 MiB.
DATA_FILE_LIMIT = 64 << 20


class NotRegular(ReadError, OSError):
    """A path that is not a regular file (a FIFO, a device, a socket, a folder), or too
    long to read; ``mode``: the file's mode (0 when too long)."""

    def __init__(self, message: str, mode: int = 0) -> None:
        super().__init__(message)
        self.mode = mode


def open_regular_fd(path: Path | str) -> int:
    """A descriptor of a regular file opened for reading, else OSError (NotRegular for
    another kind: a FIFO without a writer would block, a device never ends). O_NONBLOCK
    so that opening a FIFO returns at once; the kind is taken from the open descriptor,
    so nothing can change between a check and the open (docs/security.md)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegular(f"not a regular file ({file_kind(mode)}): not read", mode)
    return fd


def file_kind(mode: int) -> str:
    """What a file of this mode is, for a message."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def read_text(path: Path | str, limit: int = DATA_FILE_LIMIT) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, else OSError or
    UnicodeDecodeError (a ValueError)."""
    with os.fdopen(open_regular_fd(path), "rb") as handle:
        # read(n) allocates n bytes at once: ask for the file's size (plus one byte to
        # see it grow), then for the rest of the limit only if it did grow.
        hint = min(limit, os.fstat(handle.fileno()).st_size) + 1
        data = handle.read(hint)
        if len(data) == hint and hint <= limit:
            data += handle.read(limit + 1 - hint)
    if len(data) > limit:
        raise NotRegular(f"larger than {limit:,} bytes: not read")
    return data.decode("utf-8")


def load_json(path: Path) -> Any:
    """A JSON data file's content; DataFileError when it cannot be read or parsed, or an
    object repeats a key."""
    import json

    try:
        return json.loads(read_text(path), object_pairs_hook=_unique_pairs)
    except (OSError, ValueError) as err:
        raise DataFileError(f"{path}: {err}") from None


def _unique_pairs(pairs: list[tuple[str, Any]]) -> Document:
    out: Document = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


# --- inheritance ------------------------------------------------------------------------
#
# Every kind of round data (rules, scoring, RCP, system descriptions) states a round as
# the changes from another: ``extends`` names the round (any spelling) or file it starts
# from; a named collection (rule sections and their keys, scoring benchmarks, RCP
# benchmarks, schema properties) is merged by ``merge_named``, where removing a name the
# parent does not have is an error (a typo would otherwise keep a retired entry).

EXTENDS = "extends"


def merge_named(
    inherited: Document,
    changes: Document | None,
    removed: list[str] | None,
    where: str,
    *,
    update: bool = False,
) -> Document:
    """``inherited`` (changed in place and returned) less ``removed``, plus ``changes``:
    each entry given replaces the inherited one whole, or with ``update`` its fields
    replace the inherited entry's fields. DataFileError for a removal of an unknown name."""
    for name in removed or ():
        if name not in inherited:
            raise DataFileError(f"{where}: removes {name!r}, which it does not inherit")
        del inherited[name]
    for name, entry in (changes or {}).items():
        if update and isinstance(inherited.get(name), dict) and isinstance(entry, dict):
            inherited[name] = {**inherited[name], **entry}
        else:
            inherited[name] = entry
    return inherited


def validate(data: Any, schema: Path, path: Path) -> None:
    """DataFileError naming each place where ``data`` (read from ``path``) breaks its
    kind's JSON Schema (schemas/scoring/scoring.schema.json, schemas/rcp/rcp.schema.json).
    A shipped file scripts/prepare_data.py validated, unchanged since, is not validated
    again (prepared.validated)."""
    from .prepared import validated

    if validated(path, schema):
        return
    check_schema(data, schema, path)


def check_schema(data: Any, schema: Path, path: Path) -> None:
    """``validate`` without the prepared shortcut: jsonschema, always."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(load_json(schema))
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        shown = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
                 for e in errors[:5]]  # fmt: skip
        raise DataFileError(f"{path}: " + "; ".join(shown))
