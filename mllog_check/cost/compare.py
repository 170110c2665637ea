"""Performance per dollar, ratio to a baseline, break-even price, cost per run.

Formulas (docs/cost.md):
- perf/$ = 1 / (minutes × price), one unit per column: ``perf_per_dollar`` is training
  runs per day per $1M of purchase price (``PERF_SCALE / (minutes × price)``);
  ``runs_per_1k`` (``cloud-hourly`` prices) is runs per $1,000 of rental
  (``1000 / hardware cost per run``).
- ratio_to_baseline = perf/$ of the row / perf/$ of the baseline, same group (round,
  division, benchmark) (= minutes_base × price_base / (minutes_row × price_row)).
- break_even_price = the baseline price at which the ratio would be 1
  (= minutes_row × price_row / minutes_base): below it the baseline wins.
- cost per run (runcost.py): hardware (hourly price × instances × hours, or the
  purchase price amortized over a life and a utilization) plus electricity where the
  energy is known (power logs) and a price per kWh is given.

Rows are grouped by round, division and benchmark: ratios only within a group, the
baseline found per group. A ratio across divisions or rounds is made only when the user
asked for it (``--baseline`` in another group) and allowed it (``--allow-mixed``).

Perf/$ is not an official MLPerf metric (MLCommons policy on derived metrics);
every output carries NOTE and the footnotes this module collects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import UsageError
from ..suggest import did_you_mean
from .prices import PriceEntry
from .runcost import J_PER_KWH, Assumptions, RunCost, run_cost

NOTE = (
    "Performance per dollar is not an official MLPerf metric: it is derived from "
    "MLPerf Training results and third-party prices, not verified by MLCommons."
)
# Training runs per day per $1M: 1440 minutes/day × 1e6 $.
PERF_SCALE = 1440 * 1_000_000
PERF_UNIT = "runs/day per $1M"
HOURLY_PERF_UNIT = "runs per $1k"


class ScoreLike(Protocol):
    """What the cost stage needs from ``mllog_check.results.Score``.

    Optional fields read with getattr: ``rcp_verdict``, ``energy_j``, ``nodes``.
    """

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


class CostError(UsageError, ValueError):
    """A comparison that must not be made (a refused mix, a bad baseline): exit 2."""


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
    price: float | None  # None: no catalog entry names this system
    currency: str
    price_kind: str
    price_system: str
    price_source: str
    price_date: str
    price_includes: str
    perf_per_dollar: float | None  # purchase prices: runs/day per $1M (PERF_UNIT)
    ratio_to_baseline: float | None
    break_even_price: float | None
    # Hardware cost of one run: hourly, or a purchase price amortized as stated (catalog
    # life_years and utilization, or the user's); None with the reason in cost_per_run_note.
    cost_per_run: float | None
    is_baseline: bool
    instances: int = 1
    instances_from: str = ""
    energy_kwh: float | None = None  # per run, at the wall (× PUE)
    energy_cost: float | None = None
    energy_note: str = ""
    total_per_run: float | None = None
    cost_basis: str = ""  # the hardware cost's arithmetic, as printed beside it
    hardware_cost: float | None = None  # per run, hourly or amortized purchase
    # What the result ran on (docs/scores.md, "Hardware columns"), where the score says.
    accelerator_model: str = ""
    nodes: int | None = None
    host: str = ""
    interconnect: str = ""
    accelerator_minutes: float | None = None
    runs_per_1k: float | None = None  # cloud-hourly prices: runs per $1k of rental
    cost_per_run_note: str = ""  # why cost_per_run is empty

    @property
    def perf(self) -> float | None:
        """Perf/$ in the row's own unit (``PERF_UNIT`` or ``HOURLY_PERF_UNIT``)."""
        return self.runs_per_1k if self.price_kind == "cloud-hourly" else self.perf_per_dollar


@dataclass
class CostReport:
    rows: list[CostRow]
    note: str = NOTE
    footnotes: list[str] = field(default_factory=list)
    baseline: str | None = None
    assumptions: Assumptions = field(default_factory=Assumptions)
    catalog_kwh: bool = False  # every catalog row priced gives its kwh_price

    def assumption_lines(self, currency: str = "USD") -> list[str]:
        return self.assumptions.lines(currency, catalog_kwh=self.catalog_kwh)

    @property
    def perf_unit(self) -> str:
        kinds = {r.price_kind == "cloud-hourly" for r in self.rows if r.price is not None}
        if kinds == {True}:
            return HOURLY_PERF_UNIT
        if kinds == {True, False}:
            return f"{PERF_UNIT} (purchase), {HOURLY_PERF_UNIT} (cloud-hourly)"
        return PERF_UNIT


def find_price(score: ScoreLike, prices: Sequence[PriceEntry]) -> PriceEntry | None:
    """The one catalog entry naming this score's folder or system_name; None if none.

    Several matching entries is an error (CostError): picking one would be a guess.
    """
    found = [p for p in prices if _names(score, p)]
    if len(found) > 1:
        where = ", ".join(f"{p.system!r} at {p.where()}" for p in found)
        raise CostError(f"system {score.system!r} matches several prices: {where}")
    return found[0] if found else None


def group_key(score: ScoreLike) -> tuple[str, str, str]:
    return (score.ruleset, _division(score.division), score.benchmark)


def compare(
    scores: Iterable[ScoreLike],
    prices: Sequence[PriceEntry],
    baseline: str | None = None,
    benchmarks: Sequence[str] = (),
    allow_mixed: bool = False,
    divisions: Sequence[str] = (),
    assumptions: Assumptions | None = None,
    picked: bool = True,
) -> CostReport:
    """Price every score, group like with like, and compute the columns.

    ``picked``: the user chose these results one by one (system or benchmark folders,
    or scores handed in), so a ``baseline`` found only in another division or round is
    a comparison they asked for: refused without ``allow_mixed``. Over whole org or
    round folders such a group simply gets no ratio (a footnote says why).
    """
    assumed = assumptions or Assumptions()
    wanted = {b.lower() for b in benchmarks}
    in_division = {_division(d) for d in divisions}
    chosen = [
        s
        for s in scores
        if (not wanted or s.benchmark.lower() in wanted)
        and (not in_division or _division(s.division) in in_division)
    ]
    if not chosen:
        known = {sc.benchmark.lower() for sc in scores}
        hints = "".join(
            f"; no result for --benchmark {b}{did_you_mean(b, known)}"
            for b in sorted(wanted - known)
        )
        raise CostError(
            f"no scores to compare (check the paths, --benchmark and --division){hints}"
        )
    footnotes: list[str] = []
    priced = _price_all(chosen, prices, footnotes)
    _warn_patterns(priced, footnotes)
    groups: dict[tuple[str, str, str], list[tuple[ScoreLike, PriceEntry | None]]] = {}
    for score, price in priced:
        groups.setdefault(group_key(score), []).append((score, price))
    bases = _baselines(groups, baseline, allow_mixed, footnotes, picked)
    rows: list[CostRow] = []
    for key in sorted(groups):
        rows.extend(_group_rows(groups[key], bases.get(key), assumed, footnotes))
    if baseline is not None and not any(r.is_baseline for r in rows) and not bases:
        raise CostError(f"baseline {baseline!r} matches no priced result")
    _disclose(chosen, footnotes)
    used = [price for _, price in priced if price is not None]
    catalog_kwh = bool(used) and all(price.kwh_price is not None for price in used)
    return CostReport(
        rows=rows,
        footnotes=footnotes,
        baseline=baseline,
        assumptions=assumed,
        catalog_kwh=catalog_kwh,
    )


def _price_all(
    scores: list[ScoreLike], prices: Sequence[PriceEntry], footnotes: list[str]
) -> list[tuple[ScoreLike, PriceEntry | None]]:
    """Price every score; unpriced ones stay as rows without a price (one footnote)."""
    priced, missing, errors = [], [], []
    for score in scores:
        try:
            price = find_price(score, prices)
        except CostError as err:
            errors.append(str(err))
            continue
        priced.append((score, price))
        if price is None:
            missing.append(f"{score.system} ({score.system_name or '?'}, {score.benchmark})")
    if errors:  # every ambiguous match at once
        raise CostError("; ".join(errors))
    if missing:
        footnotes.append(
            f"no price for {', '.join(sorted(set(missing)))}: listed without cost; add them "
            "(or aliases) to a price catalog"
        )
    return priced


def _warn_patterns(priced: list[tuple[ScoreLike, PriceEntry | None]], footnotes: list[str]) -> None:
    """A purchase price (of one system) that a pattern alias gives to a result on
    several nodes is counted once per node (runcost.instances): said, since the
    catalog priced one system, not the cluster."""
    from .runcost import PATTERN_NODES

    for score, price in priced:
        if price is None or price.hourly:
            continue
        count, found = _instances(score, price)
        if found == PATTERN_NODES:
            footnotes.append(
                f"{score.system} {score.benchmark}: the purchase price of {price.system!r} "
                f"({price.where()}) matched it by pattern, but it ran on {count} nodes: the "
                f"price is of one system, so perf/$ and cost count {count} systems "
                f"({count} × the price)"
            )


def _names(score: ScoreLike, price: PriceEntry) -> bool:
    if price.matches(score.system) or bool(score.system_name and price.matches(score.system_name)):
        return True
    # "9xBM.GPU.B200.8": nine instances of a priced shape (runcost.instances).
    count, _, rest = score.system.partition("x")
    return count.isdigit() and bool(rest) and price.matches(rest)


def _division(value: str | None) -> str:
    # v1.0 PCL writes "close"; capitalised "Closed" occurs (shared NOTES, system descriptions).
    low = (value or "").strip().lower()
    return "closed" if low in ("close", "closed") else low or "unknown"


def _is_baseline(score: ScoreLike, price: PriceEntry | None, baseline: str | None) -> bool:
    if baseline is None:
        return False
    wanted = baseline.casefold()
    names = (score.system.casefold(), (score.system_name or "").casefold())
    return wanted in names or (price is not None and price.matches(baseline))


_Base = tuple[ScoreLike, PriceEntry, bool]  # the baseline, and whether it is another group's


def _baselines(
    groups: dict[tuple[str, str, str], list[tuple[ScoreLike, PriceEntry | None]]],
    baseline: str | None,
    allow_mixed: bool,
    footnotes: list[str],
    picked: bool = True,
) -> dict[tuple[str, str, str], _Base]:
    """The baseline result of each group: its own, else (asked for) another group's."""
    if baseline is None:
        return {}
    own: dict[tuple[str, str, str], tuple[ScoreLike, PriceEntry]] = {}
    for key, members in groups.items():
        usable = [
            (s, p)
            for s, p in members
            if p is not None and s.valid and s.minutes and _is_baseline(s, p, baseline)
        ]
        if usable:
            own[key] = min(usable, key=lambda sp: (_cost(sp[0], sp[1]), sp[0].system))
            if len(usable) > 1:
                footnotes.append(
                    f"{_label(key)}: several baseline results; the best perf/$ one "
                    f"({own[key][0].system}) is used"
                )
    out: dict[tuple[str, str, str], _Base] = {k: (s, p, False) for k, (s, p) in own.items()}
    refused: list[tuple[tuple[str, str, str], tuple[str, str, str]]] = []
    for key in sorted(groups):
        if key in own:
            continue
        others = sorted(k for k in own if k[2] == key[2])  # same benchmark, other group
        if not others:
            footnotes.append(f"{key[2]}: no valid baseline result in {key[1]}, {key[0]}; no ratio")
            continue
        if not allow_mixed and not picked:
            footnotes.append(
                f"{key[2]}: no baseline result in {key[1]}, {key[0]}; the baseline's result "
                f"is in {_label(others[0])} (--allow-mixed compares with it); no ratio"
            )
            continue
        if not allow_mixed:
            refused.append((key, others[0]))
            continue
        out[key] = (*own[others[0]], True)
        footnotes.append(
            f"mixed {_differs(key, others[0], note=True)} compared at the user's request "
            f"(--allow-mixed): {_label(key)} against the baseline of {_label(others[0])}"
        )
    if refused:
        raise CostError(_refusal(refused))
    return out


def _differs(a: tuple[str, str, str], b: tuple[str, str, str], note: bool = False) -> str:
    what = []
    for label, i in (("divisions", 1), ("rounds (rulesets)", 0)):
        if a[i] != b[i]:
            listed = ", ".join(sorted({a[i], b[i]}))
            what.append(f"{label} ({listed})" if note else f"{label}: {listed}")
    return " and ".join(what)


def _refusal(refused: list[tuple[tuple[str, str, str], tuple[str, str, str]]]) -> str:
    pairs = "; ".join(
        f"different {_differs(key, base)} ({_label(key)} against the baseline's {_label(base)})"
        for key, base in refused
    )
    return (
        f"refusing to compare results of {pairs}: MLPerf results of different divisions or "
        "rounds are not comparable; --allow-mixed compares them anyway, with a footnote"
    )


def _label(key: tuple[str, str, str]) -> str:
    ruleset, division, benchmark = key
    return f"{benchmark} ({division}, {ruleset})"


def _group_rows(
    group: list[tuple[ScoreLike, PriceEntry | None]],
    base: _Base | None,
    assumed: Assumptions,
    footnotes: list[str],
) -> list[CostRow]:
    ordered = sorted(group, key=lambda sp: (sp[0].org, sp[0].system, sp[0].division or ""))
    rows = []
    for score, price in ordered:
        is_base = base is not None and not base[2] and score is base[0]
        usable_base = base if base is not None and _comparable(price, base[1]) else None
        if base is not None and price is not None and usable_base is None:
            footnotes.append(
                f"{score.system} {score.benchmark}: price kind or currency differs from the "
                f"baseline's ({price.kind} {price.currency} vs {base[1].kind} "
                f"{base[1].currency}); no ratio"
            )
        rows.append(_row(score, price, usable_base, is_base, assumed))
    return rows


def _comparable(price: PriceEntry | None, base: PriceEntry) -> bool:
    return price is not None and price.hourly == base.hourly and price.currency == base.currency


def _cost(score: ScoreLike, price: PriceEntry) -> float:
    """minutes × price × instances: the quantity whose inverse is perf/$."""
    assert score.minutes is not None
    return score.minutes * price.price * _instances(score, price)[0]


def _instances(score: ScoreLike, price: PriceEntry) -> tuple[int, str]:
    from .runcost import instances

    return instances(score, price)


def _disclose(scores: list[ScoreLike], footnotes: list[str]) -> None:
    statuses = sorted({s.availability or "unknown" for s in scores})
    if len(statuses) > 1:
        footnotes.append(f"mixed availability: {', '.join(statuses)}")
    for score in scores:
        # v1.0 RCP checks are pass/fail (shared NOTES); anything but a pass is disclosed.
        verdict = str(getattr(score, "rcp_verdict", "") or "")
        if verdict and verdict.lower() != "pass":
            footnotes.append(f"{score.system} {score.benchmark}: RCP verdict {verdict!r}")
        if not score.valid or score.minutes is None:
            footnotes.append(
                f"{score.system} {score.benchmark}: not a valid result "
                f"({score.reason or 'no score'}); no perf/$ computed"
            )


def _energy_only(score: ScoreLike, assumed: Assumptions) -> RunCost:
    joules = getattr(score, "energy_j", None)
    if joules is None:
        return RunCost()
    kwh = joules / J_PER_KWH * assumed.pue
    return RunCost(energy_kwh=kwh, energy_note=f"{kwh:.3f} kWh (PUE {assumed.pue:g}); no price")


def _row(
    score: ScoreLike,
    price: PriceEntry | None,
    base: _Base | None,
    is_base: bool,
    assumed: Assumptions,
) -> CostRow:
    ok = score.valid and score.minutes is not None
    minutes = score.minutes if ok else None
    perf = hourly_perf = ratio = breakeven = None
    runcost = _energy_only(score, assumed)  # energy is known without a price
    if price is not None and minutes is not None and minutes > 0:
        runcost = run_cost(score, price, minutes, assumed)
        cost = _cost(score, price)
        if price.hourly:
            hourly_perf = 1000.0 / runcost.hardware if runcost.hardware else None
        else:
            perf = PERF_SCALE / cost
        if base is not None:
            base_cost = _cost(base[0], base[1])
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
        price=None if price is None else price.price,
        currency="" if price is None else price.currency,
        price_kind="" if price is None else price.kind,
        price_system="" if price is None else price.system,
        price_source="" if price is None else price.source,
        price_date="" if price is None else price.date,
        price_includes="" if price is None else price.includes,
        perf_per_dollar=perf,
        ratio_to_baseline=ratio,
        break_even_price=breakeven,
        cost_per_run=runcost.hardware if runcost.stated else None,
        is_baseline=is_base,
        instances=runcost.instances,
        instances_from=runcost.instances_from,
        energy_kwh=runcost.energy_kwh,
        energy_cost=runcost.energy_cost,
        energy_note=runcost.energy_note,
        total_per_run=runcost.total,
        cost_basis=runcost.basis,
        hardware_cost=runcost.hardware,
        accelerator_model=getattr(score, "accelerator_model", None) or "",
        nodes=getattr(score, "nodes", None),
        host=getattr(score, "host", None) or "",
        interconnect=getattr(score, "interconnect", None) or "",
        accelerator_minutes=(
            None if minutes is None or score.accelerators is None else minutes * score.accelerators
        ),
        runs_per_1k=hourly_perf,
        cost_per_run_note=_no_cost_why(price, minutes, runcost),
    )


def _no_cost_why(price: PriceEntry | None, minutes: float | None, runcost: RunCost) -> str:
    if price is None:
        return "no price"
    if minutes is None or minutes <= 0:
        return "not a valid result"
    return runcost.unstated
