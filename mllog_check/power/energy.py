"""Energy to train from power logs, by the method of the MLCommons result summarizer.

The formulas (docs/power.md):

- a node log: E = conversion_eff × Σ reading_i × (t_i − t_{i−1}) / (stop − start) × T,
  readings in W taken in time order from ``power_measurement_start`` (t_0 = start) to
  ``power_measurement_stop``, times in ms, T the run's time to train in ms
  (run_stop − run_start), /1000 for joules: the mean power over the measurement window
  times the run's duration;
- a switch log: E = conversion_eff × interconnect_power_est × T / 1000;
- a run: the sum over its node and switch logs, in joules;
- a result: the mean of the runs' energies without the ones of the fastest and slowest
  runs (the olympic rule applied to run times, not to energies), times the scaling
  factor of ``scaling.json``.

Where a node log's window has no length (stop at or before start: the official
summarizer divides by zero), the energy is the time-weighted mean of the readings
inside the run (all readings when none falls inside) times T: ``method`` says so.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from .logs import PowerLog, efficiency_usable

J_PER_KWH = 3_600_000.0
OFFICIAL = "official"  # the summarizer's formula
FROM_READINGS = "readings over the run"  # zero-length window: see module docstring


@dataclass(frozen=True, slots=True)
class LogEnergy:
    joules: float | None  # None: the log gives no figure (no start, a non-numeric value)
    method: str = OFFICIAL


def node_energy(log: PowerLog, ttt_ms: float, run: tuple[float, float] | None) -> LogEnergy:
    """Energy of one node log over a run of ``ttt_ms`` (``run``: its start and stop ms)."""
    if log.start_ms is None or log.bad_values:
        return LogEnergy(None)
    eff = log.node_eff()
    if not efficiency_usable(eff):  # 1e-300 gave about 0 J by the official method
        return LogEnergy(None)
    stop = log.stop_ms
    times, watts = log.window_readings()
    if stop is None:  # the summarizer takes the last reading's time as the stop
        stop = max(times, default=log.start_ms)
    if stop > log.start_ms:
        area, prev = 0.0, log.start_ms
        for t, w in zip(times, watts, strict=True):
            area += w * (t - prev)
            prev = t
        return LogEnergy(eff * area * ttt_ms / (stop - log.start_ms) / 1000.0)
    return LogEnergy(eff * _mean_power(log, run) * ttt_ms / 1000.0, FROM_READINGS)


def _mean_power(log: PowerLog, run: tuple[float, float] | None) -> float:
    """Time-weighted mean of the readings in the run (each holds since the one before)."""
    times, watts = log.reading_times, log.reading_watts
    order: Sequence[int] = range(len(times))
    if any(
        (times[h], watts[h]) > (times[i], watts[i]) for h, i in itertools.pairwise(order)
    ):  # readings as the summarizer sorts them: by time, then watts
        order = sorted(order, key=lambda i: (times[i], watts[i]))
    inside = [i for i in order if run is not None and run[0] <= times[i] <= run[1]]
    chosen = inside or order
    if not chosen:
        return 0.0
    span = times[chosen[-1]] - times[chosen[0]]
    if span <= 0:
        return statistics.fmean(watts[i] for i in chosen)
    area = sum(watts[i] * (times[i] - times[h]) for h, i in itertools.pairwise(chosen))
    return area / span


def switch_energy(log: PowerLog, ttt_ms: float) -> LogEnergy:
    if log.bad_values or not efficiency_usable(log.switch_eff):
        return LogEnergy(None)
    eff = log.switch_eff if log.switch_eff is not None else 1.0
    watts = log.interconnect_w if log.interconnect_w is not None else 0.0
    return LogEnergy(eff * watts * ttt_ms / 1000.0)


@dataclass(frozen=True, slots=True)
class RunEnergy:
    """One run's energy: the sum over its node and switch logs."""

    joules: float | None
    method: str
    nodes: int
    switches: int
    node_j: float | None = None  # the node logs' part of ``joules``
    switch_j: float | None = None  # the switch logs' (interconnect estimates) part


def run_energy(
    nodes: Sequence[PowerLog], switches: Sequence[PowerLog], start_ms: float, stop_ms: float
) -> RunEnergy:
    ttt = stop_ms - start_ms
    parts = [node_energy(n, ttt, (start_ms, stop_ms)) for n in nodes]
    parts += [switch_energy(s, ttt) for s in switches]
    if not nodes or any(p.joules is None for p in parts):
        return RunEnergy(None, OFFICIAL, len(nodes), len(switches))
    method = FROM_READINGS if any(p.method == FROM_READINGS for p in parts) else OFFICIAL
    joules = [p.joules or 0.0 for p in parts]
    node_j, switch_j = sum(joules[: len(nodes)]), sum(joules[len(nodes) :])
    return RunEnergy(node_j + switch_j, method, len(nodes), len(switches), node_j, switch_j)


def olympic_energy(
    energies: Sequence[float], minutes: Sequence[float], drop: int, already_dropped: int = 0
) -> float | None:
    """Mean energy without the runs that are fastest and slowest by time to train.

    ``already_dropped`` failed runs stand for the slowest ones, as for the time score.
    Ties in time keep the given order (the runs' file order).
    """
    order = sorted(range(len(minutes)), key=lambda i: minutes[i])
    ranked = [energies[i] for i in order]
    kept = ranked[drop : len(ranked) - max(drop - already_dropped, 0)]
    return statistics.fmean(kept) if kept else None


def average_power(joules: float | None, minutes: float | None) -> float | None:
    """Mean power in W over a timed run (or a result's kept runs): energy over time to
    train. The official energy is the window's mean power times the run's time, so this
    is that mean power times conversion_eff, plus the switches' estimates."""
    if joules is None or minutes is None or minutes <= 0:
        return None
    return joules / (minutes * 60.0)


def perf_per_watt(minutes: float | None, watts: float | None) -> float | None:
    """Training runs per hour per kW of mean power: the speed (runs per hour) over the
    power drawn. For training it equals runs per kWh (1 / the energy per run)."""
    if minutes is None or watts is None or minutes <= 0 or watts <= 0:
        return None
    return (60.0 / minutes) / (watts / 1000.0)


def kwh(joules: float | None) -> float | None:
    return None if joules is None else joules / J_PER_KWH
