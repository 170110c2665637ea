"""Power logs and energy to train (MLE rules): docs/power.md.

``check_power(runs, folder)`` checks ``folder/power`` against the result files' run
times and gives each run's energy; ``olympic_energy`` makes the result's energy score
as the MLCommons result summarizer does.
"""

from __future__ import annotations

from .checks import PowerReport, RunTiming, check_benchmark_folder, check_power, has_power, timing
from .energy import (
    FROM_READINGS,
    J_PER_KWH,
    OFFICIAL,
    RunEnergy,
    average_power,
    kwh,
    olympic_energy,
    perf_per_watt,
)
from .logs import PowerLog, power_log, read_power_log

__all__ = [
    "FROM_READINGS",
    "J_PER_KWH",
    "OFFICIAL",
    "PowerLog",
    "PowerReport",
    "RunEnergy",
    "RunTiming",
    "average_power",
    "check_benchmark_folder",
    "check_power",
    "has_power",
    "kwh",
    "olympic_energy",
    "perf_per_watt",
    "power_log",
    "read_power_log",
    "timing",
]
