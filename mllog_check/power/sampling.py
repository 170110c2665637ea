"""How often a node log reads power, against the power rules (docs/power.md, "Sampling").

MLPerf Training power_measurement.adoc (mlcommons/training_policies), section 3.4
"Report 1 Measurement per Second": readings at least once every second, evenly over
the timed portion of a run; section 3.5 "Measure max(a run, 60 power samples)": the
measurement covers the run and holds at least 60 readings. Both are warnings beyond
the official tools (which check only file names and counts).

Tolerance: meters polled at 1 Hz whose timestamps are whole seconds skip a tick now and
then (5.5 % of the v5.0 corpus intervals are 2 s, the rest 1 s), so the typical (median)
interval must be at most ``RATE_SLACK`` s and no interval longer than ``LONGEST_S`` (one
skipped tick).
"""

from __future__ import annotations

import itertools
import statistics
from array import array

from ..problems import Problem
from . import codes
from .logs import PowerLog, between, sorted_times

REQUIRED_S = 1.0  # at least one reading per second (section 3.4)
RATE_SLACK = 1.1  # the median interval may exceed REQUIRED_S by timestamp jitter
LONGEST_S = 2.0 * REQUIRED_S  # evenly: at most one skipped tick in a row
MIN_READINGS = 60  # section 3.5


def sampling_problems(
    log: PowerLog, start_ms: float | None, stop_ms: float | None
) -> list[Problem]:
    """MLE035 and MLE036 for one node log of a run timed ``start_ms``..``stop_ms``."""
    if log.start_ms is None or not log.reading_times:
        return []  # MLE006, MLE024 say why there is nothing to judge
    run = (start_ms, stop_ms) if start_ms is not None and stop_ms is not None else None
    out = _rate(log, run[0], run[1]) if run is not None and run[1] > run[0] else []
    return out + _count(log, log.start_ms, run)


def _rate(log: PowerLog, start_ms: float, stop_ms: float) -> list[Problem]:
    inside = sorted_times(between(log.reading_times, start_ms, stop_ms))
    steps = array("d", [inside[0] - start_ms if inside else stop_ms - start_ms])
    steps.extend(b - a for a, b in itertools.pairwise(inside))
    if inside:
        steps.append(stop_ms - inside[-1])
    typical = statistics.median(steps) / 1000.0
    longest = max(steps) / 1000.0
    if typical <= RATE_SLACK * REQUIRED_S and longest <= LONGEST_S:
        return []
    run_s = (stop_ms - start_ms) / 1000.0
    msg = (
        f"{len(inside)} reading(s) over the {run_s:g} s timed run: one every {typical:g} s "
        f"(median), longest interval {longest:g} s; the power rules require at least one "
        f"per {REQUIRED_S:g} s, evenly (power_measurement.adoc 3.4)"
    )
    return [codes.problem(codes.SAMPLING_RATE, log.path, msg)]


def _count(log: PowerLog, begin_ms: float, run: tuple[float, float] | None) -> list[Problem]:
    """Readings in the measurement window (over the run where the window has no length):
    at least 60 (section 3.5). Once per second over the run is section 3.4's rule, MLE035's:
    counting it here too said one fault twice, with two counts."""
    if log.stop_ms is not None and log.stop_ms <= begin_ms:
        # MLE007: no window, so the readings over the run (all where the run has no time)
        times = log.reading_times
        held = len(times) if run is None else sum(1 for t in times if run[0] <= t <= run[1])
    else:
        held = len(log.window_readings()[0])
    if held >= MIN_READINGS:
        return []
    msg = (
        f"{held} reading(s) in the measurement window; the power rules require at "
        f'least {MIN_READINGS} (power_measurement.adoc 3.5 "Measure max(a run, 60 power '
        'samples)")'
    )
    return [codes.problem(codes.TOO_FEW_SAMPLES, log.path, msg)]
