"""Check a result's ``power/`` folder and compute each run's energy.

Layout (MLPerf Training rules, power track from v4.0):
``<benchmark>/power/result_N/node_K.txt`` (one per node) and ``sw_K.txt`` (one per
switch) for every ``<benchmark>/result_N.txt``. Every problem is a ``Problem`` with a
MLE code (codes.py); bad logs never raise.
"""

from __future__ import annotations

import itertools
import re
import statistics
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..parsing import parse_file
from ..parsing.scanner import PROBLEM_LIMIT
from ..problems import Problem
from ..records import ParseResult
from . import codes
from .energy import FROM_READINGS, RunEnergy, run_energy
from .logs import (
    EFF_MAX,
    EFF_MIN,
    PowerLog,
    between,
    efficiency_usable,
    finite_time,
    read_power_log,
    sorted_times,
)
from .sampling import sampling_problems

POWER_DIR = "power"
_LOG_NAME = re.compile(r"^(node|sw)_(.*)\.txt$")
_RESULT_STEM = re.compile(r"^(result_[^.]*)\.txt(?:\.gz)?$")
GAP_MIN_S = 10.0  # a gap is longer than max(GAP_MIN_S, GAP_FACTOR × median interval)
GAP_FACTOR = 5.0
SPIKE_FACTOR = 10.0


@dataclass(frozen=True, slots=True)
class RunTiming:
    """What the power rules need from a result file."""

    path: str
    start_ms: float | None
    stop_ms: float | None


@dataclass
class PowerReport:
    """One benchmark folder's power logs: problems, and energy per result file path."""

    folder: str
    problems: list[Problem] = field(default_factory=list)
    energies: dict[str, RunEnergy] = field(default_factory=dict)

    @property
    def method(self) -> str:
        methods = {e.method for e in self.energies.values() if e.joules is not None}
        return FROM_READINGS if FROM_READINGS in methods else ("official" if methods else "")


def has_power(folder: str | Path) -> bool:
    return (Path(folder) / POWER_DIR).is_dir()


def timing(result: ParseResult) -> RunTiming:
    """First run_start and first run_stop, as the time to train takes them."""
    start = next((r.timestamp_ms for r in result.records if r.key == "run_start"), None)
    stop = next((r.timestamp_ms for r in result.records if r.key == "run_stop"), None)
    start = start if finite_time(start) else None
    stop = stop if finite_time(stop) else None
    if start is not None and stop is not None and stop < start:
        start = stop = None  # no time window: no energy (the score says why: MLR033)
    return RunTiming(result.path, start, stop)


def check_benchmark_folder(folder: str) -> PowerReport:
    """Read the result files of ``folder`` and check its power logs (catalog examples)."""
    files = sorted(p for p in Path(folder).iterdir() if _RESULT_STEM.match(p.name))
    return check_power([timing(parse_file(str(p))) for p in files], folder)


def check_power(runs: Sequence[RunTiming], folder: str) -> PowerReport:
    """Problems and per-run energies of ``folder/power`` for the given result files."""
    report = PowerReport(folder)
    power = Path(folder) / POWER_DIR
    if not power.is_dir():
        return report
    stems = {_stem(r.path): r for r in runs}
    node_counts: list[tuple[str, int]] = []
    switch_counts: list[tuple[str, int]] = []
    for entry in _listing(power, report):
        if entry.is_dir() and entry.name in stems:
            continue
        if entry.is_dir() and entry.name.startswith("result_"):
            msg = f"power/{entry.name} has no {entry.name}.txt: it measures no published run"
            report.problems.append(codes.problem(codes.UNMATCHED, str(entry), msg))
        else:
            msg = "stray file in power/: only power/result_N folders belong there"
            report.problems.append(codes.problem(codes.STRAY, str(entry), msg))
    for stem, run in sorted(stems.items(), key=lambda kv: _natural(kv[0])):
        run_dir = power / stem
        if not run_dir.is_dir():
            msg = (
                f"no power/{stem} folder for {Path(run.path).name}: every run needs its power logs"
            )
            report.problems.append(codes.problem(codes.RESULT_MISSING, str(power), msg))
            continue
        nodes, switches = _run_logs(run_dir, report)
        node_counts.append((stem, len(nodes)))
        switch_counts.append((stem, len(switches)))
        _check_run(run, nodes, switches, run_dir, report)
    _check_counts(node_counts, codes.NODE_COUNT, "node", power, report)
    _check_counts(switch_counts, codes.SWITCH_COUNT, "switch", power, report)
    report.problems = roll_up_sampling(report.problems, power)
    report.problems.sort()
    return report


# Sampling findings said once per result set: a meter's habit shows in every node log of
# every run (2,864 lines for two v4.1 orgs), and a reviewer files it once.
_ROLLED = frozenset({codes.SAMPLING_RATE.code, codes.TOO_FEW_SAMPLES.code})
_LOGS_SHOWN = 4


def roll_up_sampling(problems: list[Problem], power: Path) -> list[Problem]:
    """MLE035 and MLE036 once per result set each: at the first node log (by run, then
    node, in natural order), its own figures, then how many node logs of how many runs
    show the same rule and the first few of them (docs/power.md, "Sampling")."""
    kept = [p for p in problems if p.rule not in _ROLLED]
    for code in sorted(_ROLLED):
        found = sorted((p for p in problems if p.rule == code), key=_log_order)
        if len(found) < 2:
            kept.extend(found)
            continue
        runs = {Path(p.path).parent.name for p in found}
        names = [_relative(p.path, power) for p in found]
        shown = ", ".join(names[:_LOGS_SHOWN])
        more = f", +{len(names) - _LOGS_SHOWN}" if len(names) > _LOGS_SHOWN else ""
        head = found[0]
        said = f"; in {len(found)} node logs of {len(runs)} run(s) in all: {shown}{more}"
        kept.append(head.replace(message=head.message + said))
    return kept


def _log_order(problem: Problem) -> tuple[tuple[int, str], tuple[int, str]]:
    path = Path(problem.path)
    return _natural(path.parent.name), _natural(path.stem)


def _relative(path: str, power: Path) -> str:
    try:
        return Path(path).relative_to(power).as_posix()
    except ValueError:
        return Path(path).name


def _listing(folder: Path, report: PowerReport) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError as err:
        report.problems.append(
            codes.problem(codes.STRAY, str(folder), f"cannot list power folder: {err}")
        )
        return []


def _stem(path: str) -> str:
    name = Path(path).name
    match = _RESULT_STEM.match(name)
    return match.group(1) if match else name.split(".")[0]


def _natural(stem: str) -> tuple[int, str]:
    digits = stem.rpartition("_")[2]
    return (int(digits), stem) if digits.isdigit() else (1 << 30, stem)


def _run_logs(run_dir: Path, report: PowerReport) -> tuple[list[PowerLog], list[PowerLog]]:
    """node and sw logs of one run; names checked as the package checker does, and more."""
    found: dict[str, list[tuple[Path, int | None]]] = {"node": [], "sw": []}
    for path in _listing(run_dir, report):
        match = _LOG_NAME.match(path.name)
        if path.is_dir() or match is None:
            msg = f"stray file in power/{run_dir.name}: only node_K.txt and sw_K.txt belong there"
            report.problems.append(codes.problem(codes.STRAY, str(path), msg))
            continue
        index = match.group(2)
        found[match.group(1)].append((path, int(index) if index.isdigit() else None))
    logs: dict[str, list[PowerLog]] = {}
    for kind, entries in found.items():
        _check_names(kind, entries, run_dir, report)
        # Read only inside the benchmark folder (power/result_N/ is two levels below it).
        tree = str(run_dir.parent.parent)
        logs[kind] = [read_power_log(str(p), kind, i, tree) for p, i in entries]
    return logs["node"], logs["sw"]


def _check_names(
    kind: str, entries: list[tuple[Path, int | None]], run_dir: Path, report: PowerReport
) -> None:
    n = len(entries)
    for path, index in entries:
        if index is None or index >= n:
            msg = (
                f"{path.name}: {kind} logs of power/{run_dir.name} must be named "
                f"{kind}_0.txt … {kind}_{n - 1}.txt ({n} found)"
            )
            report.problems.append(codes.problem(codes.BAD_NAME, str(path), msg))
    repeated = Counter(i for _, i in entries if i is not None)
    for path, index in entries:
        if index is not None and repeated[index] > 1:
            msg = f"{path.name}: {kind} index {index} used by {repeated[index]} files"
            report.problems.append(codes.problem(codes.DUPLICATE_INDEX, str(path), msg))


def _check_counts(
    counts: list[tuple[str, int]], info: codes.RuleInfo, what: str, power: Path, report: PowerReport
) -> None:
    if not counts:
        return
    tally = Counter(n for _, n in counts)
    # The most common count (the first seen on a tie), as the package checker decides.
    usual = max(tally, key=lambda n: (tally[n], -[c for _, c in counts].index(n)))
    for stem, n in counts:
        if n != usual:
            msg = f"power/{stem} has {n} {what} log(s); the other runs have {usual}"
            report.problems.append(codes.problem(info, str(power / stem), msg))


def _check_run(
    run: RunTiming,
    nodes: list[PowerLog],
    switches: list[PowerLog],
    run_dir: Path,
    report: PowerReport,
) -> None:
    if not nodes:
        msg = f"power/{run_dir.name} has no node log: no energy for {Path(run.path).name}"
        report.problems.append(codes.problem(codes.NO_NODE, str(run_dir), msg))
    for log in nodes + switches:
        report.problems.extend(log.problems)
        report.problems.extend(_values(log))
    for log in nodes:
        report.problems.extend(_node(log, run))
    for log in switches:
        if log.interconnect_w is None and not log.bad_values:
            msg = "no interconnect_power_est: the switch adds no energy"
            report.problems.append(codes.problem(codes.SWITCH_MISSING, log.path, msg))
    if run.start_ms is not None and run.stop_ms is not None and nodes:
        report.energies[run.path] = run_energy(nodes, switches, run.start_ms, run.stop_ms)


def _values(log: PowerLog) -> list[Problem]:
    from ..rules.engine import omitted_problem

    out = []
    for line, key, value in log.bad_values[:PROBLEM_LIMIT]:  # the rest counted
        if isinstance(value, int | float) and not isinstance(value, bool):
            msg = f"{key} {value!r} is not a finite number up to 1e9: left out of the energy"
        else:
            msg = f"{key} {value!r} is not a number: no energy for this run"
        out.append(codes.problem(codes.NOT_A_NUMBER, log.path, msg, line))
    more = log.bad_count - len(log.bad_values)
    if more > 0:
        omitted = Counter({codes.NOT_A_NUMBER.severity: more})
        out.append(omitted_problem(log.path, "power", omitted))
    ev = log.conversion_eff
    if not efficiency_usable(ev):
        msg = f"conversion_eff {ev:g} is outside [{EFF_MIN:g}, {EFF_MAX:g}]: no energy for this run"
        out.append(codes.problem(codes.EFF_RANGE, log.path, msg, log.eff_line))
    counts = log.kind == "node" or log.interconnect_w is not None
    if not log.has_eff and log.has_events and counts:
        out.append(codes.problem(codes.EFF_MISSING, log.path, "no conversion_eff: 1 assumed"))
    if log.interconnect_w is not None and log.interconnect_w <= 0:
        msg = f"interconnect_power_est {log.interconnect_w:g} W is not positive"
        out.append(codes.problem(codes.NOT_POSITIVE, log.path, msg))
    return out


def _node(log: PowerLog, run: RunTiming) -> list[Problem]:
    out: list[Problem] = []
    if log.start_ms is None:
        what = "an empty log" if not log.has_events else "no power_measurement_start"
        msg = f"{what}: no energy for this run"
        return [codes.problem(codes.NO_START, log.path, msg)]
    if log.stop_ms is None:
        msg = "no power_measurement_stop: the last reading's time is taken as the stop"
        out.append(codes.problem(codes.NO_STOP, log.path, msg))
    elif log.stop_ms <= log.start_ms:
        msg = (
            f"power_measurement_stop ({log.stop_ms:.0f}) is not after power_measurement_start "
            f"({log.start_ms:.0f}): a zero-length window; energy from the readings over the run"
        )
        out.append(codes.problem(codes.EMPTY_WINDOW, log.path, msg, log.stop_line))
    out.extend(_readings(log))
    out.extend(_coverage(log, run))
    out.extend(sampling_problems(log, run.start_ms, run.stop_ms))
    return out


def _readings(log: PowerLog) -> list[Problem]:
    out = []
    watts = log.reading_watts
    if not watts:
        return [codes.problem(codes.NO_READINGS, log.path, "no power_reading: energy 0")]
    low = _first_and_count(watts, lambda w: w <= 0)
    if low is not None:
        first, count = low
        msg = f"{count} power_reading value(s) of zero or less, first {watts[first]:g} W"
        out.append(codes.problem(codes.NOT_POSITIVE, log.path, msg, log.reading_lines[first]))
    median = statistics.median(watts)
    if median > 0:
        high = _first_and_count(watts, lambda w: w > SPIKE_FACTOR * median)
        if high is not None:
            first, count = high
            msg = (
                f"{count} power_reading value(s) above {SPIKE_FACTOR:g} × the median "
                f"({median:g} W), first {watts[first]:g} W"
            )
            out.append(codes.problem(codes.SPIKE, log.path, msg, log.reading_lines[first]))
    out.extend(_gaps(log))
    return out


def _first_and_count(
    values: Sequence[float], test: Callable[[float], bool]
) -> tuple[int, int] | None:
    """(index of the first value passing ``test``, how many pass), or None."""
    first, count = -1, 0
    for i, value in enumerate(values):
        if test(value):
            count += 1
            if first < 0:
                first = i
    return (first, count) if count else None


def _gaps(log: PowerLog) -> list[Problem]:
    if log.start_ms is None or log.stop_ms is None or log.stop_ms <= log.start_ms:
        return []
    times = sorted_times(between(log.reading_times, log.start_ms, log.stop_ms))
    if not times:
        return []
    steps = array("d", (b - a for a, b in itertools.pairwise(times)))
    median = statistics.median(steps) if steps else 0.0
    tolerance = max(GAP_MIN_S * 1000.0, GAP_FACTOR * median)
    edges = [log.start_ms, *times, log.stop_ms]
    gaps = [(a, b) for a, b in itertools.pairwise(edges) if b - a > tolerance]
    if not gaps:
        return []
    a, b = max(gaps, key=lambda g: g[1] - g[0])
    msg = (
        f"{len(gaps)} sampling gap(s) over {tolerance / 1000:g} s; the longest "
        f"{(b - a) / 1000:g} s from time_ms {a:.0f}"
    )
    return [codes.problem(codes.GAP, log.path, msg)]


def _coverage(log: PowerLog, run: RunTiming) -> list[Problem]:
    if run.start_ms is None or run.stop_ms is None or log.start_ms is None:
        return []
    stop = log.stop_ms
    if stop is None or stop <= log.start_ms:  # no stop, or MLE007: the readings' span
        stop = max(log.reading_times, default=log.start_ms)
    late = log.start_ms - run.start_ms
    early = run.stop_ms - stop
    if late <= 0 and early <= 0:
        return []
    parts = []
    if late > 0:
        parts.append(f"starts {late / 1000:g} s after run_start")
    if early > 0:
        parts.append(f"stops {early / 1000:g} s before run_stop")
    msg = f"the measurement window does not cover the run: it {' and '.join(parts)}"
    line = log.start_line if late > 0 else log.stop_line
    return [codes.problem(codes.WINDOW_SHORT, log.path, msg, line)]
