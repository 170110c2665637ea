"""An audit's record: what ``report`` and ``trends`` need of a whole audit, written once
into the audit's output folder (``record.json.gz``) so that they need not read the logs
again (``--from-audit DIR``; docs/report.md, "From an audit").

The record is the report's own data (``collect.ReportData``) as the audit computed it,
before the audit's filters and selection, with every run's evaluation curve and energy:
a report or trends from it equals one from the logs. It is versioned (``FORMAT``,
``VERSION`` and the mllog-check version that wrote it); a folder written by another
version is refused. An audit folder is someone else's data (docs/security.md): the file
is read only when regular and no link, its compressed and decompressed sizes are
bounded, its JSON is checked against ``SCHEMA`` before a value is used, and nothing
else is read (no log, no power file: the record holds what the page shows).
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..results.curves import RunCurve, fields_json, from_fields
from .collect import PROBLEM_ROW, ReportData, ReportError

if TYPE_CHECKING:
    from ..submission.curvespill import CurveSpill

FILE = "record.json.gz"
FORMAT = "mllog-check audit record"
VERSION = 1
# Bounds on reading (docs/security.md): the corpus's record is a few MB compressed; the
# published record's about 25 times that.
COMPRESSED_LIMIT = 1 << 30
EXPANDED_LIMIT = 4 << 30


class RecordError(ReportError):
    """An audit folder that holds no record this build can read, and why."""


def from_audit(result: Any, base: Path, paths: Sequence[str], jobs: int | None) -> ReportData:
    """The report's data of an audit (``submission.audit.run_audit``'s result, before
    filters and selection), as ``collect`` gathers it from the logs: the same rows, then
    every run's curve and the power logs' energy (``collect._finish``)."""
    from ..submission.ranking import anomaly_row
    from .collect import _finish, _shown, problem_shown

    data = ReportData(list(paths), str(base))
    data.skipped = [_shown(str(base))(s) for s in result.skipped]
    # The audit's own rows, not copies (20,000 runs: 24 MB): the record only writes them,
    # and what adds keys (_finish's energy) makes new rows.
    data.orgs.extend(result.orgs)
    data.runs.extend(result.runs)
    for score in result.scores:
        (data.weak if score.get("scaling") == "weak" else data.scores).append(score)
    data.problems.extend(problem_shown(p) for p in result.problems)
    data.anomalies.extend(anomaly_row(a) for a in result.anomalies)
    data.rulesets.extend(result.org_rounds.values())
    _gathered(data, result.curves)
    _finish(data, jobs)
    return data


def _gathered(data: ReportData, spill: CurveSpill) -> None:
    """The curves the audit's workers took from the records they parsed for the checks,
    as ``report`` from the logs reads them (``collect.run_pool``): no log is read again
    for them (docs/report.md, "From an audit"). They stay in the audit's temporary file
    until written. A run no worker gave one for is read by ``_finish``."""
    taken = [
        run["path"]
        for run in data.runs
        if run["path"] in spill and spill.benchmark(run["path"]) == run["benchmark"]
    ]
    data.curves = Spilled(spill, data.absolute, taken)


class Spilled(MutableMapping[str, RunCurve]):
    """Curves by shown path: the audit's, read from its temporary file when asked for
    (``taken``), and any set here (read from a log by ``_finish``), held."""

    def __init__(self, spill: CurveSpill, absolute: Callable[[str], str], taken: list[str]):
        self.spill = spill
        self.absolute = absolute
        self.taken = set(taken)
        self.held: dict[str, RunCurve] = {}

    def __getitem__(self, path: str) -> RunCurve:
        if path in self.held:
            return self.held[path]
        if path in self.taken:
            return self.spill.curve(path, self.absolute(path))
        raise KeyError(path)

    def __setitem__(self, path: str, curve: RunCurve) -> None:
        self.held[path] = curve

    def __delitem__(self, path: str) -> None:
        if path not in self.held and path not in self.taken:
            raise KeyError(path)
        self.held.pop(path, None)
        self.taken.discard(path)

    def __contains__(self, path: object) -> bool:  # without reading the curve
        return path in self.held or path in self.taken

    def __iter__(self) -> Iterator[str]:
        return iter(self.taken | set(self.held))

    def __len__(self) -> int:
        return len(self.taken | set(self.held))

    def text(self, path: str) -> tuple[str, str]:
        """(the curve's path, its other fields as ``fields_json`` writes them)."""
        if path in self.held:
            return self.held[path].path, fields_json(self.held[path])
        return self.absolute(path), self.spill.text(path)


def write_record(data: ReportData, folder: Path) -> Path:
    """``data`` as ``folder/record.json.gz`` (outputs.open_output: never through a link).

    The bytes are ``json.dumps(document, separators=(",", ":"))`` of the whole record,
    written a section and a thousand rows at a time: a whole record's text (58 MB for
    20,000 runs) and its bytes are never held at once (docs/audit.md, "Cold, cached,
    memory")."""
    import gzip

    from .. import __version__
    from ..outputs import open_output

    head = {
        "format": FORMAT,
        "version": VERSION,
        "mllog_check": __version__,
        "paths": data.paths,
        "base": data.base,
        "rulesets": data.rulesets,
        "skipped": data.skipped,
    }
    rows: dict[str, Sequence[Any]] = {
        "orgs": data.orgs,
        "runs": data.runs,
        "scores": data.scores,
        "weak": data.weak,
        "anomalies": data.anomalies,
        "problems": data.problems,
    }
    path = folder / FILE
    with (
        open_output(path, binary=True) as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) as out,
    ):
        out.write(_dumps(head)[:-1].encode())  # the head's members, then the rest
        for key, items in rows.items():
            out.write(f",{_dumps(key)}:[".encode())
            for first in range(0, len(items), _CHUNK):
                text = _dumps(items[first : first + _CHUNK])[1:-1]
                out.write(("," + text if first else text).encode())
            out.write(b"]")
        out.write(f",{_dumps('curves')}:{{".encode())
        # One curve at a time, from the audit's temporary file (Spilled): never all held.
        for i, run in enumerate(sorted(data.curves)):
            where, fields = _curve_text(data.curves, run)
            entry = f'{_dumps(run)}:{{"path":{_dumps(where)},{fields[1:]}'
            out.write(("," + entry if i else entry).encode())
        out.write(b"}}")
    return path


_CHUNK = 1000  # rows per json.dumps call


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """A row's value JSON has no type for (a tuple is a list already)."""
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def _curve_text(curves: MutableMapping[str, RunCurve], run: str) -> tuple[str, str]:
    """(the log's path as the audit read it, the curve's other fields as JSON)."""
    if isinstance(curves, Spilled):
        return curves.text(run)
    return curves[run].path, fields_json(curves[run])


def read_record(folder: str | Path) -> ReportData:
    """The report's data an audit wrote into ``folder``; RecordError says why not."""
    import jsonschema

    from .. import __version__

    where = Path(folder)
    raw = _read_bounded(where)
    try:
        document = json.loads(raw, object_pairs_hook=_unique)
    except (ValueError, RecursionError) as err:
        raise RecordError(f"{where / FILE}: not JSON ({err})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RecordError(f"{where / FILE}: not an mllog-check audit record")
    written = document.get("version"), document.get("mllog_check")
    if written != (VERSION, __version__):
        raise RecordError(
            f"{where / FILE}: written by mllog-check {_said(written[1])} (record version "
            f"{_said(written[0])}); this is mllog-check {__version__} (record version "
            f"{VERSION}): audit again with this version"
        )
    try:
        jsonschema.validate(document, SCHEMA)
    except jsonschema.ValidationError as err:
        at = "/".join(str(p) for p in err.absolute_path) or "(top)"
        raise RecordError(f"{where / FILE}: not a valid record at {at}: {err.message}") from None
    data = ReportData(document["paths"], document["base"])
    data.rulesets = document["rulesets"]
    data.skipped = document["skipped"]
    data.orgs = document["orgs"]
    data.runs = document["runs"]
    data.scores = document["scores"]
    data.weak = document["weak"]
    data.anomalies = document["anomalies"]
    data.problems = document["problems"]
    data.curves = {path: from_fields(c["path"], c) for path, c in document["curves"].items()}
    missing = [r["path"] for r in data.runs if r["path"] not in data.curves]
    if missing:
        raise RecordError(f"{where / FILE}: no evaluation curve for {missing[0]}")
    return data


def _said(value: Any) -> str:
    from ..safety import printable

    return printable(str(value))[:40] if value is not None else "(unknown)"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"repeated key {key!r}")
        out[key] = value
    return out


def _read_bounded(folder: Path) -> bytes:
    """The record's JSON bytes: a regular file, no link (the folder neither), at most
    COMPRESSED_LIMIT bytes, expanding to at most EXPANDED_LIMIT."""
    from ..datafiles import file_kind

    path = folder / FILE
    if folder.is_symlink():
        raise RecordError(f"{folder}: a symbolic link: not followed")
    if not folder.is_dir():
        raise RecordError(f"{folder}: not a folder (an audit's --out folder)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise RecordError(
            f"{folder}: holds no {FILE} (written by `mllog-check audit --out {folder}` "
            "of this version)"
        ) from None
    except OSError as err:  # ELOOP: the file is a link
        raise RecordError(f"{path}: not read ({err.strerror or err})") from None
    with os.fdopen(fd, "rb") as handle:
        import stat

        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise RecordError(f"{path}: not a regular file ({file_kind(mode)}): not read")
        packed = handle.read(COMPRESSED_LIMIT + 1)
    if len(packed) > COMPRESSED_LIMIT:
        raise RecordError(f"{path}: larger than {COMPRESSED_LIMIT:,} bytes: not read")
    inflate = zlib.decompressobj(wbits=31)  # gzip only
    try:
        out = inflate.decompress(packed, EXPANDED_LIMIT + 1)
    except zlib.error as err:
        raise RecordError(f"{path}: not gzip ({err})") from None
    if len(out) > EXPANDED_LIMIT or inflate.unconsumed_tail:
        raise RecordError(f"{path}: expands beyond {EXPANDED_LIMIT:,} bytes: not read")
    if not inflate.eof:
        raise RecordError(f"{path}: truncated")
    return out


# What a record must hold before any value is used: the keys every reader takes without
# asking (the tables' key columns), with their types.
_TEXT = {"type": "string"}
_NUMBER_OR_NULL = {"type": ["number", "null"]}
_SCALAR = {"type": ["string", "number", "boolean", "null"]}


def _rows(required: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "object", "required": sorted(required), "properties": required},
    }


_PLACE = {"org": _TEXT, "system": _TEXT, "benchmark": _TEXT}
_TEXT_OR_NULL = {"type": ["string", "null"]}
# What trends and the report's rows read of a score (results/trends.py).
_SCORE = {
    **_PLACE,
    "minutes": _NUMBER_OR_NULL,
    "valid": {"type": ["boolean", "null"]},
    "division": _TEXT_OR_NULL,
    "ruleset": _TEXT,
    "folder": _TEXT,
    "accelerators": {"type": ["integer", "null"]},
    "accelerator_model": _TEXT_OR_NULL,
    "system_name": _TEXT_OR_NULL,
    "host": _TEXT_OR_NULL,
    "rcp_verdict": _TEXT_OR_NULL,
    "rcp_message": _TEXT_OR_NULL,
    "republished": {"type": ["boolean", "null"]},
}
_PROBLEM = {
    **dict.fromkeys(PROBLEM_ROW, _SCALAR),
    "org": _TEXT,
    "path": _TEXT,
    "line": {"type": "integer"},
    "column": {"type": "integer"},
    "rule": _TEXT,
    "severity": {"enum": ["error", "warning", "info"]},
    "message": _TEXT,
}
TOP_KEYS = (
    "format",
    "version",
    "mllog_check",
    "paths",
    "base",
    "rulesets",
    "skipped",
    "orgs",
    "runs",
    "scores",
    "weak",
    "anomalies",
    "problems",
    "curves",
)
CURVE_KEYS = ("path", "points", "batch_size", "converged_at", "stop_line", "start_ms", "stop_ms")
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": list(TOP_KEYS),
    "properties": {
        "paths": {"type": "array", "items": _TEXT},
        "base": _TEXT,
        "rulesets": {"type": "array", "items": _TEXT},
        "skipped": {"type": "array", "items": _TEXT},
        "orgs": _rows(
            {
                "org": _TEXT,
                "passed": {"type": "boolean"},
                "errors": {"type": "integer"},
                "warnings": {"type": "integer"},
                "runs": {"type": "integer"},
                "failure": {"type": ["string", "null"]},
            }
        ),
        "runs": _rows(
            {
                **_PLACE,
                "path": _TEXT,
                "minutes": _NUMBER_OR_NULL,
                "run_start_ms": _NUMBER_OR_NULL,
                "run_stop_ms": _NUMBER_OR_NULL,
            }
        ),
        "scores": _rows(_SCORE),
        "weak": _rows(_SCORE),
        "anomalies": _rows(
            {**_PLACE, "path": _TEXT, "line": {"type": "integer"}, "kind": _TEXT, "code": _TEXT}
        ),
        "problems": _rows(_PROBLEM),
        "curves": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": list(CURVE_KEYS),
                "properties": {
                    "path": _TEXT,
                    "points": {
                        "type": "array",
                        "items": {
                            "type": "array",
                            "prefixItems": [{"type": "integer"}, _NUMBER_OR_NULL, _NUMBER_OR_NULL],
                            "minItems": 4,
                            "maxItems": 4,
                        },
                    },
                    "batch_size": {"type": ["integer", "null"]},
                    "converged_at": _NUMBER_OR_NULL,
                    "stop_line": {"type": "integer"},
                    "start_ms": _NUMBER_OR_NULL,
                    "stop_ms": _NUMBER_OR_NULL,
                },
            },
        },
    },
}
