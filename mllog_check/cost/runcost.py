"""What one training run costs: hardware time plus electricity (docs/cost.md).

- hourly (``cloud-hourly``) price: price per instance-hour × instances × hours;
- purchase price: price × instances amortized over ``life_years`` at ``utilization``
  (the share of the hours the system trains), per hour of the run;
- electricity, where the energy per run is known from power logs (docs/power.md):
  kWh × PUE × price per kWh (``--kwh-price``, else the catalog's ``kwh_price``); for an
  hourly price it is part of the rental and not added again.

Every assumption is returned as text beside the figure (``basis``, ``energy_note``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .prices import PriceEntry

HOURS_PER_YEAR = 8766.0  # 365.25 days
J_PER_KWH = 3_600_000.0
_INSTANCES = re.compile(r"^(\d+)x(.+)$")


@dataclass(frozen=True, slots=True)
class Assumptions:
    """The cost model's choices, printed with every cost (defaults: docs/cost.md)."""

    life_years: float = 4.0
    utilization: float = 0.8
    kwh_price: float | None = None  # None: the catalog's kwh_price, else not priced
    pue: float = 1.0

    def lines(self, currency: str = "USD", catalog_kwh: bool = False) -> list[str]:
        """The assumptions in words; ``catalog_kwh``: every priced catalog row gives its
        own kwh_price (then that is the electricity price, not "not given")."""
        if self.kwh_price is not None:
            kwh = f"{self.kwh_price:g} {currency}/kWh"
        else:
            kwh = "each system's catalog kwh_price" if catalog_kwh else "not given"
        return [
            "hardware per run: hourly price × instances × hours (cloud-hourly); purchase "
            f"price × instances / ({self.life_years:g} years × {HOURS_PER_YEAR:g} h × "
            f"{self.utilization:.0%} utilization) × hours (--life-years, --utilization)",
            f"electricity: energy per run from the power logs × PUE {self.pue:g} (--pue) × "
            f"{kwh} (--kwh-price, else the catalog's kwh_price); part of a cloud-hourly price",
            "instances: the N of a results folder named Nx<system>, else for cloud-hourly "
            "prices the system description's number_of_nodes, else 1",
        ]


@dataclass(frozen=True, slots=True)
class RunCost:
    hardware: float | None = None
    instances: int = 1
    instances_from: str = ""
    energy_kwh: float | None = None
    energy_cost: float | None = None
    energy_note: str = ""
    total: float | None = None
    basis: str = ""


def instances(score: Any, price: PriceEntry) -> tuple[int, str]:
    """How many priced units the result ran on, and how that was found."""
    match = _INSTANCES.match(score.system)
    if match and int(match.group(1)) > 0:
        rest = match.group(2)
        if price.matches(rest) or (score.system_name or "").casefold() == rest.casefold():
            return int(match.group(1)), f"folder {score.system}"
    nodes = getattr(score, "nodes", None)
    if price.hourly and isinstance(nodes, int) and nodes > 0:
        return nodes, "number_of_nodes"
    return 1, "one system"


def run_cost(score: Any, price: PriceEntry, minutes: float, assumed: Assumptions) -> RunCost:
    count, found = instances(score, price)
    hours = minutes / 60.0
    money = _money(price.currency)
    if price.hourly:
        hardware = price.price * count * hours
        basis = f"{count}×{money(price.price)}/h×{hours:.3f}h"
    else:
        per_hour = price.price * count / (assumed.life_years * HOURS_PER_YEAR * assumed.utilization)
        hardware = per_hour * hours
        basis = (
            f"{count}×{money(price.price)}/({assumed.life_years:g}y×"
            f"{assumed.utilization:.0%})×{hours:.3f}h"
        )
    kwh, cost, note = _energy(score, price, assumed)
    total = hardware + (cost or 0.0)
    return RunCost(hardware, count, found, kwh, cost, note, total, basis)


def _energy(
    score: Any, price: PriceEntry, assumed: Assumptions
) -> tuple[float | None, float | None, str]:
    joules = getattr(score, "energy_j", None)
    if joules is None:
        return None, None, "energy unknown (no power logs): not in the total"
    kwh = joules / J_PER_KWH * assumed.pue
    method = getattr(score, "energy_method", "") or "official"
    if price.hourly:
        return kwh, None, f"energy ({method}) part of the hourly price: not added"
    rate = assumed.kwh_price if assumed.kwh_price is not None else price.kwh_price
    if rate is None:
        return kwh, None, "no --kwh-price: electricity not in the total"
    where = "--kwh-price" if assumed.kwh_price is not None else "catalog kwh_price"
    note = f"{kwh:.3f} kWh (PUE {assumed.pue:g}, {method}) × {rate:g}/kWh ({where})"
    return kwh, kwh * rate, note


def _money(currency: str) -> Any:
    def fmt(value: float) -> str:
        text = f"{value:,.2f}" if abs(value) < 1000 else f"{value:,.0f}"
        return f"${text}" if currency == "USD" else f"{text} {currency}"

    return fmt
