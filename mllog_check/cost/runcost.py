"""What one training run costs: hardware time plus electricity (docs/cost.md).

- hourly (``cloud-hourly``) price: price per instance-hour × instances × hours;
- purchase price: price × instances amortized over ``life_years`` at ``utilization``
  (the share of the hours the system trains), per hour of the run; the amortization is
  *stated* when both come from the user (``--life-years``, ``--utilization``) or the
  price's catalog entry, and only a stated one gives ``cost_per_run`` (the defaults still
  give ``hardware_cost``, said so);
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
DEFAULT_LIFE_YEARS = 4.0
DEFAULT_UTILIZATION = 0.8
UNSTATED = (
    "purchase price without a stated amortization (life_years and utilization in the "
    "catalog, or --life-years and --utilization): no cost per run; hardware_cost assumes "
)
J_PER_KWH = 3_600_000.0
_INSTANCES = re.compile(r"^(\d+)x(.+)$")


@dataclass(frozen=True, slots=True)
class Assumptions:
    """The cost model's choices, printed with every cost (defaults: docs/cost.md).
    ``life_years``/``utilization`` None: not given (the catalog entry's, else the default)."""

    life_years: float | None = None
    utilization: float | None = None
    kwh_price: float | None = None  # None: the catalog's kwh_price, else not priced
    pue: float = 1.0

    def amortization(self, price: PriceEntry) -> tuple[float, float, bool]:
        """Years and utilization for a purchase price (the user's, else the catalog
        entry's, else the defaults) and whether both were stated."""
        years = _first(self.life_years, price.life_years)
        share = _first(self.utilization, price.utilization)
        stated = years is not None and share is not None
        return (
            DEFAULT_LIFE_YEARS if years is None else years,
            DEFAULT_UTILIZATION if share is None else share,
            stated,
        )

    def lines(self, currency: str = "USD", catalog_kwh: bool = False) -> list[str]:
        """The assumptions in words; ``catalog_kwh``: every priced catalog row gives its
        own kwh_price (then that is the electricity price, not "not given")."""
        if self.kwh_price is not None:
            kwh = f"{self.kwh_price:g} {currency}/kWh"
        else:
            kwh = "each system's catalog kwh_price" if catalog_kwh else "not given"
        life = "life_years" if self.life_years is None else f"{self.life_years:g} years"
        use = "utilization" if self.utilization is None else f"{self.utilization:.0%} utilization"
        return [
            "hardware per run: hourly price × instances × hours (cloud-hourly); purchase "
            f"price × instances / ({life} × {HOURS_PER_YEAR:g} h × {use}) × hours, "
            "years and utilization from --life-years and --utilization, else the price's "
            f"catalog entry, else {DEFAULT_LIFE_YEARS:g} years at {DEFAULT_UTILIZATION:.0%}: "
            "then not stated, and a purchase price has no cost per run",
            f"electricity: energy per run from the power logs × PUE {self.pue:g} (--pue) × "
            f"{kwh} (--kwh-price, else the catalog's kwh_price); part of a cloud-hourly price",
            "instances: the N of a results folder named Nx<system>, else for cloud-hourly "
            "prices, and purchase prices a pattern gives to a multi-node result, the system "
            "description's number_of_nodes, else 1",
        ]


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


@dataclass(frozen=True, slots=True)
class RunCost:
    hardware: float | None = None
    stated: bool = False  # hourly, or a purchase price amortized as stated
    unstated: str = ""  # why a purchase price gives no cost per run
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
    if isinstance(nodes, int) and nodes > 1 and not named_exactly(score, price):
        # A pattern (dgxa100*) gives one system's purchase price to a cluster of them:
        # priced as its nodes, as an hourly rate is; never as one system (docs/cost.md).
        return nodes, PATTERN_NODES
    return 1, "one system"


PATTERN_NODES = "number_of_nodes (one system's price, matched by pattern)"


def named_exactly(score: Any, price: PriceEntry) -> bool:
    """Whether the catalog writes out the result's folder or system_name (no pattern):
    then the price is of the system so named, whatever its node count."""
    names = {n.casefold() for n in price.names()}
    return score.system.casefold() in names or (score.system_name or "").casefold() in names


def run_cost(score: Any, price: PriceEntry, minutes: float, assumed: Assumptions) -> RunCost:
    count, found = instances(score, price)
    hours = minutes / 60.0
    money = _money(price.currency)
    stated, unstated = True, ""
    if price.hourly:
        hardware = price.price * count * hours
        basis = f"{count}×{money(price.price)}/h×{hours:.3f}h"
    else:
        years, share, stated = assumed.amortization(price)
        hardware = price.price * count / (years * HOURS_PER_YEAR * share) * hours
        basis = f"{count}×{money(price.price)}/({years:g}y×{share:.0%})×{hours:.3f}h"
        if not stated:
            unstated = f"{UNSTATED}{years:g} years at {share:.0%}"
    kwh, cost, note = _energy(score, price, assumed)
    total = hardware + (cost or 0.0)
    return RunCost(
        hardware=hardware,
        stated=stated,
        unstated=unstated,
        instances=count,
        instances_from=found,
        energy_kwh=kwh,
        energy_cost=cost,
        energy_note=note,
        total=total,
        basis=basis,
    )


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
