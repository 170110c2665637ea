"""One power log (``node_K.txt`` or ``sw_K.txt``) as the energy rules see it.

Power logs are MLLOG logs like result files and go through the same parser; this
module only picks the power keys out of the records.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..inputs import Source
from ..parsing.scanner import PROBLEM_LIMIT
from ..problems import Problem
from ..records import ParseResult, Record

START = "power_measurement_start"
STOP = "power_measurement_stop"
READING = "power_reading"
EFFICIENCY = "conversion_eff"
# conversion_eff a log may state: a power supply converts at most all it draws, and one
# converting under half is no server's (80 PLUS certifies 80% and above); all 35 published
# node logs state 0.94. Outside it, the log gives no energy (docs/power.md).
EFF_MIN, EFF_MAX = 0.5, 1.0


def efficiency_usable(eff: float | None) -> bool:
    """An absent conversion_eff (1 assumed) or one in [EFF_MIN, EFF_MAX]."""
    return eff is None or EFF_MIN <= eff <= EFF_MAX


SWITCH = "interconnect_power_est"
POWER_KEYS = frozenset({START, STOP, READING, EFFICIENCY, SWITCH})


# A power value beyond this (watts, or a ratio) is not a measurement: 1e308 W turned a
# run's energy into infinity (docs/security.md).
POWER_LIMIT = 1e9


def number(value: Any) -> float | None:
    """A JSON number as float; None for anything else (strings, null, booleans, NaN,
    infinities, and magnitudes beyond POWER_LIMIT): it never enters an energy."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and value.bit_length() > 64:
        return None
    number = float(value)
    return number if math.isfinite(number) and abs(number) <= POWER_LIMIT else None


def finite_time(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(float(value))


# Each power event is kept as a few numbers in columns (``array``), never as a record:
# a parsed record costs about 1 KB, and 2,000,000 readings took 1.98 GB and over 300 s
# in ``score`` (docs/security.md, "Bounds"). Event kinds, in ``PowerLog.kinds``:
KIND_OF = {START: 0, STOP: 1, READING: 2, EFFICIENCY: 3, SWITCH: 4}
_START, _STOP, _READING, _EFFICIENCY = 0, 1, 2, 3
NAN = math.nan


@dataclass
class PowerLog:
    path: str
    kind: str  # "node" or "sw"
    index: int | None
    problems: list[Problem] = field(default_factory=list)  # the parser's
    start_ms: float | None = None
    stop_ms: float | None = None
    start_line: int = 0
    stop_line: int = 0
    conversion_eff: float | None = None
    eff_line: int = 0
    interconnect_w: float | None = None
    # A switch's conversion_eff as the summarizer reads it: the last one logged before
    # the first interconnect_power_est (file order), else 1.
    switch_eff: float | None = None
    # Every power event with a finite time, in file order: its time (ms), its kind
    # (KIND_OF) and its value as ``number`` reads it (NaN where it is none).
    times: array[float] = field(default_factory=lambda: array("d"))
    kinds: bytearray = field(default_factory=bytearray)
    numbers: array[float] = field(default_factory=lambda: array("d"))
    # The numeric readings, in file order: time (ms), watts and line.
    reading_times: array[float] = field(default_factory=lambda: array("d"))
    reading_watts: array[float] = field(default_factory=lambda: array("d"))
    reading_lines: array[int] = field(default_factory=lambda: array("q"))
    # (line, key, value) of power values that are not numbers: the first PROBLEM_LIMIT,
    # and how many in all (each is a problem, and those past the limit are counted).
    bad_values: list[tuple[int, str, Any]] = field(default_factory=list)
    bad_count: int = 0
    _in_order: bool = True  # event times never decrease in file order
    _order: array[int] | None = None  # else the events' time order, once asked

    @property
    def has_events(self) -> bool:
        return bool(self.kinds)

    @property
    def has_eff(self) -> bool:
        return _EFFICIENCY in self.kinds

    def _time_order(self) -> Sequence[int]:
        """Event indices in time order, file order on ties (a stable sort, made once)."""
        if self._in_order:
            return range(len(self.kinds))
        if self._order is None or len(self._order) != len(self.kinds):
            self._order = array("q", sorted(range(len(self.kinds)), key=self.times.__getitem__))
        return self._order

    def node_eff(self) -> float:
        """conversion_eff as the summarizer reads a node log: the last in time order, else 1."""
        eff = 1.0
        numbers, kinds = self.numbers, self.kinds
        for i in self._time_order():
            if kinds[i] == _EFFICIENCY and not math.isnan(numbers[i]):
                eff = numbers[i]
        return eff

    def window_readings(self) -> tuple[array[float], array[float]]:
        """Readings the summarizer integrates, as (times, watts): in time order (file
        order on ties), after the last ``power_measurement_start`` seen and before the
        stop."""
        started = stopped = False
        times, watts = array("d"), array("d")
        numbers, kinds, at = self.numbers, self.kinds, self.times
        for i in self._time_order():
            kind = kinds[i]
            if kind == _START:
                started = True
            elif kind == _READING and started and not stopped:
                if not math.isnan(numbers[i]):
                    times.append(at[i])
                    watts.append(numbers[i])
            elif kind == _STOP:
                stopped = True
        return times, watts


def sorted_times(times: Sequence[float]) -> array[float]:
    """``times`` in ascending order, each once: linear when they come in order (a sort
    otherwise)."""
    out = array("d")
    last = -math.inf
    for t in times:
        if t > last:
            out.append(t)
            last = t
        elif t < last:
            return array("d", sorted(set(times)))
    return out


def between(times: Iterable[float], low: float, high: float) -> array[float]:
    """The times in [low, high], in their order."""
    return array("d", (t for t in times if low <= t <= high))


def read_power_log(path: str, kind: str, index: int | None, root: str | None = None) -> PowerLog:
    """One power log, read as a stream (its records are never all held); with ``root``,
    a log whose link leaves that tree is not read."""
    from pathlib import Path

    from ..parsing import RecordStream

    tree = None if root is None else Path(root)
    stream = RecordStream(Source(path, Path(path), tree))
    log = PowerLog(path, kind, index)
    for batch in stream.batches():
        _feed(log, batch)
    log.problems = list(stream.result.problems)
    return log


def power_log(result: ParseResult, kind: str, index: int | None) -> PowerLog:
    log = PowerLog(result.path, kind, index, problems=list(result.problems))
    _feed(log, result.records)
    return log


def _feed(log: PowerLog, records: Iterable[Record]) -> None:
    kinds, times, kinds_of, numbers = KIND_OF, log.times, log.kinds, log.numbers
    for rec in records:
        kind = kinds.get(rec.key)
        if kind is None:
            continue
        time_ms = rec.timestamp_ms
        if not finite_time(time_ms):  # an event without a time cannot be placed
            _bad(log, rec.line, f"{rec.key} time_ms", time_ms)
            continue
        time_ms = float(time_ms)
        if times and time_ms < times[-1]:
            log._in_order = False
        value = rec.value
        # the common case first: a float reading in range (``number`` says the rest)
        num = (
            value
            if type(value) is float and -POWER_LIMIT <= value <= POWER_LIMIT
            else number(value)
        )
        times.append(time_ms)
        kinds_of.append(kind)
        numbers.append(NAN if num is None else num)
        if kind == _READING and num is not None:
            log.reading_times.append(time_ms)
            log.reading_watts.append(num)
            log.reading_lines.append(rec.line)
        else:
            _take(log, rec.key, value, num, time_ms, rec.line)


def _bad(log: PowerLog, line: int, key: str, value: Any) -> None:
    if log.bad_count < PROBLEM_LIMIT:
        log.bad_values.append((line, key, value))
    log.bad_count += 1


def _take(
    log: PowerLog, key: str, value: Any, num: float | None, time_ms: float, line: int
) -> None:
    # The summarizer keeps the last start and stop (in time order) and the last
    # conversion_eff; a switch's first interconnect_power_est.
    if key == START and (log.start_ms is None or time_ms >= log.start_ms):
        log.start_ms, log.start_line = time_ms, line
    elif key == STOP and (log.stop_ms is None or time_ms >= log.stop_ms):
        log.stop_ms, log.stop_line = time_ms, line
    elif key in (READING, EFFICIENCY, SWITCH):
        if num is None:
            _bad(log, line, key, value)
        elif key == EFFICIENCY:  # (a numeric reading is taken by _feed)
            log.conversion_eff, log.eff_line = num, line
        elif log.interconnect_w is None:
            log.interconnect_w, log.switch_eff = num, log.conversion_eff
