"""The energy columns of a score: per run and the result's olympic energy score.

``results.scores.score_set`` calls ``energy_of_set`` for a benchmark folder with a
``power/`` folder; everything else about power stays in this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..problems import Problem
from ..records import ParseResult
from .checks import check_power, has_power, timing
from .energy import FROM_READINGS, OFFICIAL, RunEnergy, average_power, olympic_energy


class RunLike(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def minutes(self) -> float | None: ...
    @property
    def counted(self) -> bool: ...


@dataclass
class SetEnergy:
    joules: float | None  # olympic energy score × scaling factor; None when not computable
    method: str  # "official", "readings over the run" (docs/power.md), or why none
    per_run: dict[str, float | None] = field(default_factory=dict)  # result path -> J
    problems: list[Problem] = field(default_factory=list)
    # Over the runs the energy score keeps (docs/power.md, "Beyond joules"): mean power
    # (their energy over their time, so the scaling factor cancels) and the node and
    # switch shares of their energy.
    avg_power_w: float | None = None
    node_share: float | None = None
    switch_share: float | None = None


def energy_of_set(
    folder: str,
    results: Sequence[ParseResult],
    runs: Sequence[RunLike],
    drop: int,
    factor: float = 1.0,
) -> SetEnergy | None:
    """None when the folder has no power logs."""
    if not has_power(folder):
        return None
    report = check_power([timing(r) for r in results], folder)
    per_run = {path: e.joules for path, e in report.energies.items()}
    counted = [r for r in runs if r.counted and r.minutes is not None]
    failed = len(runs) - len(counted)
    energies = [per_run.get(r.path) for r in counted]
    out = SetEnergy(None, "", per_run, report.problems)
    if failed > drop:
        out.method = f"none: {failed} runs not counted (at most {drop})"
    elif any(e is None for e in energies):
        out.method = "none: a counted run has no energy (see the MLE problems)"
    else:
        minutes = [r.minutes for r in counted if r.minutes is not None]
        score = olympic_energy([e for e in energies if e is not None], minutes, drop, failed)
        out.joules = None if score is None else score * factor
        # Marked when a run the mean keeps was integrated from its readings (MLE007).
        order = sorted(range(len(counted)), key=lambda i: minutes[i])
        kept = order[drop : len(order) - max(drop - failed, 0)]
        methods = {report.energies[counted[i].path].method for i in kept}
        if score is None:
            out.method = "none: no run left"
        else:
            out.method = FROM_READINGS if FROM_READINGS in methods else OFFICIAL
            kept_energy = [report.energies[counted[i].path] for i in kept]
            _beyond_joules(out, kept_energy, sum(minutes[i] for i in kept))
    return out


def _beyond_joules(out: SetEnergy, kept: Sequence[RunEnergy], minutes: float) -> None:
    total = sum(e.joules or 0.0 for e in kept)
    out.avg_power_w = average_power(total, minutes)
    if total > 0:
        out.node_share = sum(e.node_j or 0.0 for e in kept) / total
        out.switch_share = sum(e.switch_j or 0.0 for e in kept) / total
