"""Energy efficiency of the results with power logs, ranked (docs/power.md,
"Efficiency"): energy per training run, runs per MWh, and both per accelerator; beyond
joules, the mean power over the timed runs, the node and switch shares of the energy and
the performance per watt (docs/power.md, "Beyond joules").

The energy of a result is its energy score (``Score.energy_j``: the olympic mean of its
runs' energies, scaled as its time is). Results rank within one benchmark (under its
current name) and division, lowest energy per run first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

J_PER_KWH = 3.6e6


@dataclass(frozen=True, slots=True)
class EfficiencyRow:
    rank: int  # 1 = least energy per run in its benchmark and division
    benchmark: str
    division: str
    org: str
    system: str
    accelerator_model: str | None
    accelerators: int | None
    kwh_per_run: float
    runs_per_mwh: float
    kwh_per_accelerator: float | None  # kWh per run / accelerators
    minutes: float | None
    method: str  # official, or readings over the run (docs/power.md)
    avg_power_w: float | None = None  # mean W over the kept runs' timed windows
    node_share: float | None = None  # of the energy: node logs
    switch_share: float | None = None  # of the energy: interconnect estimates
    perf_per_watt: float | None = None  # training runs per hour per kW (= runs per kWh)


def efficiency_rows(scores: Sequence[Any]) -> list[EfficiencyRow]:
    """Rows for scores with an energy (positive and finite), ranked per benchmark."""
    import math

    from ..rounds import current_benchmark_name

    groups: dict[tuple[str, str], list[Any]] = {}
    for s in scores:
        joules = s.energy_j
        if joules is None or not math.isfinite(joules) or joules <= 0:
            continue
        name = current_benchmark_name(s.ruleset, s.benchmark)
        groups.setdefault((name, s.division or ""), []).append(s)
    rows = []
    for (name, division), members in sorted(groups.items()):
        members.sort(key=lambda s: (s.energy_j, s.org, s.system))
        for rank, s in enumerate(members, start=1):
            kwh = s.energy_j / J_PER_KWH
            rows.append(
                EfficiencyRow(
                    rank=rank,
                    benchmark=name,
                    division=division,
                    org=s.org,
                    system=s.system,
                    accelerator_model=s.accelerator_model,
                    accelerators=s.accelerators,
                    kwh_per_run=kwh,
                    runs_per_mwh=1000.0 / kwh,
                    kwh_per_accelerator=kwh / s.accelerators if s.accelerators else None,
                    minutes=s.minutes,
                    method=s.energy_method,
                    avg_power_w=getattr(s, "avg_power_w", None),
                    node_share=getattr(s, "node_energy_share", None),
                    switch_share=getattr(s, "switch_energy_share", None),
                    perf_per_watt=getattr(s, "perf_per_watt", None),
                )
            )
    return rows
