"""One power log (``node_K.txt`` or ``sw_K.txt``) as the energy rules see it.

Power logs are MLLOG logs like result files and go through the same parser; this
module only picks the power keys out of the records.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..parsing import parse_file
from ..problems import Problem
from ..records import ParseResult

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


@dataclass(frozen=True, slots=True)
class Event:
    time_ms: float
    key: str
    value: Any
    line: int


@dataclass
class PowerLog:
    path: str
    kind: str  # "node" or "sw"
    index: int | None
    events: list[Event] = field(default_factory=list)  # power keys, in file order
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
    readings: list[tuple[float, float]] = field(default_factory=list)  # (ms, W), numeric
    reading_lines: list[int] = field(default_factory=list)
    # (line, key, value) of power values that are not numbers.
    bad_values: list[tuple[int, str, Any]] = field(default_factory=list)

    def node_eff(self) -> float:
        """conversion_eff as the summarizer reads a node log: the last in time order, else 1."""
        eff = 1.0
        for event in sorted(self.events, key=lambda e: e.time_ms):
            num = number(event.value) if event.key == EFFICIENCY else None
            eff = num if num is not None else eff
        return eff

    def window_readings(self) -> list[tuple[float, float]]:
        """Readings the summarizer integrates: in time order (file order on ties),
        after the last ``power_measurement_start`` seen and before the stop."""
        started = stopped = False
        out: list[tuple[float, float]] = []
        for event in sorted(self.events, key=lambda e: e.time_ms):
            if event.key == START:
                started = True
            elif event.key == READING and started and not stopped:
                watts = number(event.value)
                if watts is not None:
                    out.append((event.time_ms, watts))
            elif event.key == STOP:
                stopped = True
        return out


def read_power_log(path: str, kind: str, index: int | None, root: str | None = None) -> PowerLog:
    """One power log; with ``root``, a log whose link leaves that tree is not read."""
    return power_log(parse_file(path, root=root), kind, index)


def power_log(result: ParseResult, kind: str, index: int | None) -> PowerLog:
    log = PowerLog(result.path, kind, index, problems=list(result.problems))
    for rec in result.records:
        if rec.key not in POWER_KEYS:
            continue
        if not finite_time(rec.timestamp_ms):  # an event without a time cannot be placed
            log.bad_values.append((rec.line, f"{rec.key} time_ms", rec.timestamp_ms))
            continue
        log.events.append(Event(float(rec.timestamp_ms), rec.key, rec.value, rec.line))
        _take(log, rec.key, rec.value, float(rec.timestamp_ms), rec.line)
    return log


def _take(log: PowerLog, key: str, value: Any, time_ms: float, line: int) -> None:
    # The summarizer keeps the last start and stop (in time order) and the last
    # conversion_eff; a switch's first interconnect_power_est.
    if key == START and (log.start_ms is None or time_ms >= log.start_ms):
        log.start_ms, log.start_line = time_ms, line
    elif key == STOP and (log.stop_ms is None or time_ms >= log.stop_ms):
        log.stop_ms, log.stop_line = time_ms, line
    elif key in (READING, EFFICIENCY, SWITCH):
        num = number(value)
        if num is None:
            log.bad_values.append((line, key, value))
        elif key == READING:
            log.readings.append((time_ms, num))
            log.reading_lines.append(line)
        elif key == EFFICIENCY:
            log.conversion_eff, log.eff_line = num, line
        elif log.interconnect_w is None:
            log.interconnect_w, log.switch_eff = num, log.conversion_eff
