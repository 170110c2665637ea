"""Typed records: what one MLPerf log line means, whatever its generation."""

from __future__ import annotations

from collections import namedtuple
from enum import StrEnum

from .problems import Problem, Severity
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any, NamedTuple, TypedDict

    # A value as logged: any JSON value (the rules judge it; nothing types it).
    Logged = Any
    # A record's metadata object as logged (the parser keeps a mapping, else {}).
    Metadata = dict[str, Logged]


class Generation(StrEnum):
    """The three syntaxes found in published MLPerf Training logs."""

    MLLOG = "mllog"  # v0.7 and later: ":::MLLOG {json}"
    MLL = "mll"  # v0.6: ":::MLL <seconds> <key>: {json}"
    MLP = "mlp"  # v0.5: ":::MLPv0.5.0 <bench> <seconds> (<file>:<line>) <key>[: <value>]"


if TYPE_CHECKING:

    class _RecordFields(NamedTuple):
        path: str
        line: int
        column: int
        generation: Generation
        namespace: Logged
        timestamp_ms: float
        event_type: str | None
        key: str
        value: Logged
        metadata: Metadata

    class RecordRow(TypedDict):
        """A record as one row (parse's JSON and CSV, ``records_frame``)."""

        path: str
        line: int
        column: int
        generation: str
        namespace: Logged
        timestamp_ms: float
        event_type: str | None
        key: str
        value: Logged
        metadata: Metadata

else:  # the same fields without typing.NamedTuple (tests/test_records.py checks they agree)
    _RecordFields = namedtuple(
        "Record",
        "path line column generation namespace timestamp_ms event_type key value metadata",
    )


class Record(_RecordFields):
    """One log record. Immutable; ``line``/``column`` locate the marker in the file (1-based)."""

    __slots__ = ()

    def epoch_num(self) -> Logged:
        return self.metadata.get("epoch_num") if isinstance(self.metadata, dict) else None

    def to_dict(self) -> RecordRow:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "generation": str(self.generation),
            "namespace": self.namespace,
            "timestamp_ms": self.timestamp_ms,
            "event_type": self.event_type,
            "key": self.key,
            "value": self.value,
            "metadata": self.metadata,
        }


class ParseResult(Value):
    """Records and problems of one input.

    Invariant: ``len(records) + error_count == marker_lines`` (every line that
    carries a marker becomes a record or an error; warnings come on top).
    A Value, not a dataclass: creating dataclasses would cost a single-file check more
    than its own work (docs/design.md, start-up time).
    """

    __slots__ = (
        "path", "records", "problems", "marker_lines", "lines", "bytes_read", "input_error",
        "omitted", "omitted_other",
    )  # fmt: skip

    def __init__(
        self,
        path: str,
        records: list[Record] | None = None,
        problems: list[Problem] | None = None,
        marker_lines: int = 0,
        lines: int = 0,
        bytes_read: int = 0,
        input_error: bool = False,  # the input could not be read at all
        # Line errors and other problems beyond the listed PROBLEM_LIMIT (docs/security.md):
        # counted, not kept; the line errors still count in error_count.
        omitted: int = 0,
        omitted_other: int = 0,
    ) -> None:
        self.path = path
        self.records: list[Record] = [] if records is None else records
        self.problems: list[Problem] = [] if problems is None else problems
        self.marker_lines = marker_lines
        self.lines = lines
        self.bytes_read = bytes_read
        self.input_error = input_error
        self.omitted = omitted
        self.omitted_other = omitted_other

    __hash__ = None  # type: ignore[assignment]  # mutable

    @property
    def error_count(self) -> int:
        return self.omitted + sum(1 for p in self.problems if p.severity is Severity.ERROR)

    @property
    def line_error_count(self) -> int:
        """Errors that stand for a marker line (syntax errors), not the file as a whole."""
        listed = sum(1 for p in self.problems if p.severity is Severity.ERROR and p.line > 0)
        return listed + self.omitted

    @property
    def ok(self) -> bool:
        return not self.input_error and self.error_count == 0

    def keys(self) -> list[str]:
        return [r.key for r in self.records]

    def generation(self) -> Generation | None:
        """The generation most records use (None for a file with none)."""
        if not self.records:
            return None
        counts: dict[Generation, int] = {}
        for r in self.records:
            counts[r.generation] = counts.get(r.generation, 0) + 1
        return max(counts, key=lambda g: counts[g])
