"""Performance per dollar, ratio to a baseline, break-even price, cost per run.

Formulas (docs/cost.md):
- perf/$ = 1 / (minutes × price); shown as training runs per day per $1M of
  purchase price (``PERF_SCALE / (minutes × price)``), or, for ``cloud-hourly``
  prices, runs per $1,000 of rental (``1000 / cost_per_run``).
- ratio_to_baseline = perf/$ of the row / perf/$ of the baseline, same benchmark
  (= minutes_base × price_base / (minutes_row × price_row)).
- break_even_price = the baseline price at which the ratio would be 1
  (= minutes_row × price_row / minutes_base): below it the baseline wins.
- cost_per_run (cloud-hourly only) = hourly price × minutes / 60.

Perf/$ is not an official MLPerf metric (MLCommons policy on derived metrics);
every output carries NOTE and the footnotes this module collects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .prices import PriceEntry

NOTE = (
    "Performance per dollar is not an official MLPerf metric: it is derived from "
    "MLPerf Training results and third-party prices, not verified by MLCommons."
)
# Training runs per day per $1M: 1440 minutes/day × 1e6 $.
PERF_SCALE = 1440 * 1_000_000
PERF_UNIT = "runs/day per $1M"
HOURLY_PERF_UNIT = "runs per $1k"


class ScoreLike(Protocol):
    """What the cost stage needs from ``mllog_check.results.Score``."""

    @property
    def org(self) -> str: ...
    @property
    def system(self) -> str: ...
    @property
    def system_name(self) -> str | None: ...
    @property
    def benchmark(self) -> str: ...
    @property
    def division(self) -> str | None: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def minutes(self) -> float | None: ...
    @property
    def valid(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def availability(self) -> str | None: ...
    @property
    def accelerators(self) -> int | None: ...


class CostError(ValueError):
    """A comparison that must not be made (unpriced system, mixed divisions, ...): exit 2."""


@dataclass(frozen=True, slots=True)
class CostRow:
    benchmark: str
    system: str
    system_name: str
    org: str
    division: str
    ruleset: str
    availability: str
    accelerators: int | None
    minutes: float | None
    price: float
    currency: str
    price_kind: str
    price_system: str
    price_source: str
    price_date: str
    price_includes: str
    perf_per_dollar: float | None
    ratio_to_baseline: float | None
    break_even_price: float | None
    cost_per_run: float | None
    is_baseline: bool


@dataclass
class CostReport:
    rows: list[CostRow]
    note: str = NOTE
    footnotes: list[str] = field(default_factory=list)
    baseline: str | None = None

    @property
    def perf_unit(self) -> str:
        hourly = any(r.price_kind == "cloud-hourly" for r in self.rows)
        return HOURLY_PERF_UNIT if hourly else PERF_UNIT


def find_price(score: ScoreLike, prices: Sequence[PriceEntry]) -> PriceEntry:
    """The one catalog entry naming this score's folder or system_name; else CostError."""
    found = [p for p in prices if _names(score, p)]
    if not found:
        raise CostError(
            f"no price for system {score.system!r} (system_name {score.system_name!r}, "
            f"{score.org}, {score.benchmark}): add it (or an alias) to a price catalog, "
            "or leave its logs out"
        )
    if len(found) > 1:
        where = ", ".join(f"{p.system!r} at {p.where()}" for p in found)
        raise CostError(f"system {score.system!r} matches several prices: {where}")
    return found[0]


def compare(
    scores: Iterable[ScoreLike],
    prices: Sequence[PriceEntry],
    baseline: str | None = None,
    benchmarks: Sequence[str] = (),
    allow_mixed: bool = False,
) -> CostReport:
    """Price every score, check the comparison is fair, and compute the columns."""
    wanted = {b.lower() for b in benchmarks}
    chosen = [s for s in scores if not wanted or s.benchmark.lower() in wanted]
    if not chosen:
        raise CostError("no scores to compare (check the paths and --benchmark)")
    # Fairness first: a refused comparison is refused whatever the catalog says.
    footnotes = _check_mix(chosen, allow_mixed)
    priced = _price_all(chosen, prices)
    _check_prices([p for _, p in priced])
    rows: list[CostRow] = []
    for bench in sorted({s.benchmark for s, _ in priced}):
        group = [(s, p) for s, p in priced if s.benchmark == bench]
        rows.extend(_benchmark_rows(group, baseline, footnotes))
    if baseline is not None and not any(r.is_baseline for r in rows):
        raise CostError(f"baseline {baseline!r} matches no priced result")
    for score, _ in priced:
        # v1.0 RCP checks are pass/fail (shared NOTES); anything but a pass is disclosed.
        verdict = str(getattr(score, "rcp_verdict", "") or "")
        if verdict and verdict.lower() != "pass":
            footnotes.append(f"{score.system} {score.benchmark}: RCP verdict {verdict!r}")
        if not score.valid or score.minutes is None:
            footnotes.append(
                f"{score.system} {score.benchmark}: not a valid result "
                f"({score.reason or 'no score'}); no perf/$ computed"
            )
    return CostReport(rows=rows, footnotes=footnotes, baseline=baseline)


def _price_all(
    scores: list[ScoreLike], prices: Sequence[PriceEntry]
) -> list[tuple[ScoreLike, PriceEntry]]:
    """Price every score; name every unpriced system at once, not only the first."""
    priced, missing = [], []
    for score in scores:
        if any(_names(score, p) for p in prices):
            priced.append((score, find_price(score, prices)))
        else:
            missing.append(f"{score.system} ({score.system_name or '?'}, {score.benchmark})")
    if missing:
        raise CostError(
            f"no price for system(s) {', '.join(sorted(set(missing)))}: add them (or aliases) "
            "to a price catalog, or leave their logs out"
        )
    return priced


def _names(score: ScoreLike, price: PriceEntry) -> bool:
    return price.matches(score.system) or bool(
        score.system_name and price.matches(score.system_name)
    )


def _check_prices(priced: list[PriceEntry]) -> None:
    currencies = sorted({p.currency for p in priced})
    if len(currencies) > 1:
        raise CostError(f"prices in several currencies ({', '.join(currencies)}): not converted")
    if len({p.hourly for p in priced}) > 1:
        raise CostError("cloud-hourly prices cannot be compared with purchase prices")


def _check_mix(scores: list[ScoreLike], allow_mixed: bool) -> list[str]:
    notes: list[str] = []
    for label, values in (
        ("divisions", {_division(s.division) for s in scores}),
        ("rounds (rulesets)", {s.ruleset for s in scores}),
    ):
        if len(values) <= 1:
            continue
        listed = ", ".join(sorted(values))
        if not allow_mixed:
            raise CostError(
                f"refusing to compare results of different {label}: {listed} "
                "(MLPerf results of different divisions or rounds are not comparable; "
                "--allow-mixed compares them anyway, with a footnote)"
            )
        notes.append(f"mixed {label} ({listed}) compared at the user's request (--allow-mixed)")
    statuses = sorted({s.availability or "unknown" for s in scores})
    if len(statuses) > 1:
        notes.append(f"mixed availability: {', '.join(statuses)}")
    return notes


def _division(value: str | None) -> str:
    # v1.0 PCL writes "close"; capitalised "Closed" occurs (shared NOTES, system descriptions).
    low = (value or "").strip().lower()
    return "closed" if low in ("close", "closed") else low or "unknown"


def _is_baseline(score: ScoreLike, price: PriceEntry, baseline: str | None) -> bool:
    if baseline is None:
        return False
    wanted = baseline.casefold()
    names = (score.system.casefold(), (score.system_name or "").casefold())
    return wanted in names or price.matches(baseline)


def _benchmark_rows(
    group: list[tuple[ScoreLike, PriceEntry]], baseline: str | None, footnotes: list[str]
) -> list[CostRow]:
    usable = [(s, p) for s, p in group if s.valid and s.minutes is not None]
    bases = [(s, p) for s, p in usable if _is_baseline(s, p, baseline)]
    base = min(bases, key=lambda sp: (_cost(sp[0], sp[1]), sp[0].system)) if bases else None
    if len(bases) > 1 and base is not None:
        footnotes.append(
            f"{base[0].benchmark}: several baseline results; the best perf/$ one "
            f"({base[0].system}) is used"
        )
    if baseline is not None and base is None:
        footnotes.append(f"{group[0][0].benchmark}: no valid baseline result; no ratio")
    ordered = sorted(group, key=lambda sp: (sp[0].org, sp[0].system, sp[0].division))
    return [_row(s, p, base, base is not None and s is base[0]) for s, p in ordered]


def _cost(score: ScoreLike, price: PriceEntry) -> float:
    """minutes × price: the quantity whose inverse is perf/$."""
    assert score.minutes is not None
    return score.minutes * price.price


def _row(
    score: ScoreLike,
    price: PriceEntry,
    base: tuple[ScoreLike, PriceEntry] | None,
    is_base: bool,
) -> CostRow:
    ok = score.valid and score.minutes is not None
    minutes = score.minutes if ok else None
    perf = ratio = breakeven = per_run = None
    if minutes is not None and minutes > 0:
        cost = minutes * price.price
        if price.hourly:
            per_run = price.price * minutes / 60.0
            perf = 1000.0 / per_run
        else:
            perf = PERF_SCALE / cost
        if base is not None:
            base_cost = _cost(*base)
            ratio = base_cost / cost
            breakeven = cost / base[0].minutes if base[0].minutes else None
    return CostRow(
        benchmark=score.benchmark,
        system=score.system,
        system_name=score.system_name or "",
        org=score.org,
        division=_division(score.division),
        ruleset=score.ruleset,
        availability=score.availability or "",
        accelerators=score.accelerators,
        minutes=minutes,
        price=price.price,
        currency=price.currency,
        price_kind=price.kind,
        price_system=price.system,
        price_source=price.source,
        price_date=price.date,
        price_includes=price.includes,
        perf_per_dollar=perf,
        ratio_to_baseline=ratio,
        break_even_price=breakeven,
        cost_per_run=per_run,
        is_baseline=is_base,
    )
