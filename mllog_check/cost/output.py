"""The cost report as data: JSON document, CSV rows, DataFrame, table cells.

The library builds these; ``mllog_check/cli/cost.py`` writes them. Every form
carries the note that perf/$ is not an official MLPerf metric.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypedDict, cast

from .compare import HOURLY_PERF_UNIT, PERF_UNIT, CostReport, CostRow

PERF_UNITS_NOTE = (
    f"perf_per_dollar is in {PERF_UNIT} of purchase price (purchase prices only); "
    f"runs_per_1k is in {HOURLY_PERF_UNIT} of rental (cloud-hourly prices only)."
)

if TYPE_CHECKING:
    import pandas as pd


class CostJsonFixed(TypedDict):
    """The fixed JSON row shape (docs/cost.md): ``JSON_FIELDS``, in order; CostRow's
    fields of the same names."""

    benchmark: str
    system: str
    org: str
    division: str
    minutes: float | None
    price: float | None
    currency: str
    price_kind: str
    price_source: str
    accelerators: int | None
    perf_per_dollar: float | None
    ratio_to_baseline: float | None
    break_even_price: float | None
    cost_per_run: float | None


class CostJsonRow(CostJsonFixed):
    """One row of the cost JSON and CSV: the fixed shape, then the honesty columns it
    lacks (``EXTRA_FIELDS``, in order); CostRow's fields, and ``hours`` (its minutes / 60)."""

    runs_per_1k: float | None
    cost_per_run_note: str
    availability: str
    price_date: str
    ruleset: str
    instances: int
    instances_from: str
    hours: float | None
    hardware_cost: float | None
    energy_kwh: float | None
    energy_cost: float | None
    total_per_run: float | None
    cost_basis: str
    energy_note: str
    accelerator_model: str
    nodes: int | None
    host: str
    interconnect: str
    accelerator_minutes: float | None


class CostJson(TypedDict):
    """The cost JSON document: the whole note (``full_note``), then the rows."""

    note: str
    rows: list[CostJsonRow]


JSON_FIELDS: tuple[str, ...] = tuple(CostJsonFixed.__annotations__)
EXTRA_FIELDS: tuple[str, ...] = tuple(
    name for name in CostJsonRow.__annotations__ if name not in JSON_FIELDS
)


def full_note(report: CostReport, assumptions: bool = True) -> str:
    """The disclaimer, the unit of perf/$, the cost assumptions and every footnote."""
    parts = [report.note, PERF_UNITS_NOTE]
    if assumptions and any(r.total_per_run is not None for r in report.rows):
        parts.append("Cost per run assumes: " + "; ".join(report.assumption_lines()) + ".")
    if report.baseline is not None:
        parts.append(
            f"ratio_to_baseline compares with {report.baseline!r} on the same benchmark; "
            "break_even_price is the baseline price at which that ratio would be 1."
        )
    parts.extend(f"Note: {text}." for text in report.footnotes)
    return " ".join(parts)


def row_dict(row: CostRow) -> CostJsonRow:
    data = dataclasses.asdict(row)
    data["hours"] = None if row.minutes is None else row.minutes / 60.0
    return cast(CostJsonRow, {name: data[name] for name in JSON_FIELDS + EXTRA_FIELDS})


def to_json(report: CostReport) -> CostJson:
    return {"note": full_note(report), "rows": [row_dict(r) for r in report.rows]}


def csv_rows(report: CostReport) -> list[list[object]]:
    """Header then rows; the note rides along in its own column so no reader loses it."""
    header: list[object] = [*JSON_FIELDS, *EXTRA_FIELDS, "note"]
    note = full_note(report)
    body = [[*row_dict(r).values(), note] for r in report.rows]
    return [header, *body]


# Columns of CostRow declared float: float64 in frames and Parquet, even when all null.
FLOAT_COLUMNS = tuple(
    f.name
    for f in dataclasses.fields(CostRow)
    if "float" in str(f.type) and "int" not in str(f.type)
)


def to_frame(report: CostReport) -> pd.DataFrame:
    """Every column of every row; the note and footnotes in ``frame.attrs`` (pandas, of
    the analysis extra, loads here)."""
    from ..extras import require

    pandas = require("pandas", "a DataFrame")
    names = [f.name for f in dataclasses.fields(CostRow)]
    frame: pd.DataFrame = pandas.DataFrame(
        [dataclasses.astuple(r) for r in report.rows], columns=names
    )
    for column in FLOAT_COLUMNS:
        frame[column] = frame[column].astype("float64")
    frame.attrs["note"] = report.note
    frame.attrs["footnotes"] = list(report.footnotes)
    frame.attrs["perf_unit"] = report.perf_unit
    return frame


def money(value: float | None, currency: str) -> str:
    if value is None:
        return "-"
    amount = f"{value:,.2f}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"${amount}" if currency == "USD" else f"{amount} {currency}"


def number(value: float | int | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def table_cells(report: CostReport) -> tuple[list[str], list[list[str]]]:
    """Header and text cells for the human table: one block of rows per group."""
    mixed = len({(r.ruleset, r.division) for r in report.rows}) > 1
    costed = any(r.total_per_run is not None for r in report.rows)
    energy = any(r.energy_kwh is not None for r in report.rows)
    header = ["benchmark", "system", "org", "division", "availability", "accel", "minutes"]
    if mixed:
        header.insert(0, "round")
    kinds = {r.price_kind == "cloud-hourly" for r in report.rows if r.price is not None}
    units = [(f"perf/$ ({PERF_UNIT})", False), (f"perf/$ ({HOURLY_PERF_UNIT})", True)]
    units = [(label, hourly) for label, hourly in units if hourly in kinds] or units[:1]
    header += ["price", "kind", *(label for label, _ in units), "ratio", "break-even"]
    if costed:
        header += ["inst", "basis"]
    if energy:
        header += ["hardware/run", "kWh/run", "energy/run"]
    if costed:
        header.append("cost/run")
    refs = {name: i for i, name in enumerate(_priced_systems(report), start=1)}
    body = []
    for r in report.rows:
        mark = " (baseline)" if r.is_baseline else ""
        cells = [r.benchmark, r.system + mark, r.org, r.division, r.availability or "-"]
        if mixed:
            cells.insert(0, r.ruleset)
        price = (
            "no price"
            if r.price is None
            else f"{money(r.price, r.currency)} [{refs[r.price_system]}]"
        )
        cells += [number(r.accelerators), number(r.minutes), price]
        cells.append(r.price_kind or "-")
        for _, hourly in units:
            cells.append(number(r.runs_per_1k if hourly else r.perf_per_dollar, 1))
        cells.append(number(r.ratio_to_baseline))
        cells.append(money(r.break_even_price, r.currency))
        if costed:
            cells.append(number(r.instances) if r.hardware_cost is not None else "-")
            cells.append(r.cost_basis or "-")
        if energy:
            cells.append(money(r.hardware_cost, r.currency))
            cells += [number(r.energy_kwh, 2), _energy_cell(r)]
        if costed:  # a purchase price amortized by default has no cost per run
            unstated = r.cost_per_run is None and r.price_kind != "cloud-hourly"
            cells.append("-" if unstated else money(r.total_per_run, r.currency))
        body.append(cells)
    return header, body


def _energy_cell(row: CostRow) -> str:
    if row.energy_cost is not None:
        return money(row.energy_cost, row.currency)
    if row.energy_kwh is not None and row.price_kind == "cloud-hourly":
        return "in price"
    return "-"


def _priced_systems(report: CostReport) -> list[str]:
    return sorted({r.price_system for r in report.rows if r.price is not None})


def sources(report: CostReport) -> list[str]:
    """One line per price used, numbered as in the table: what it covers, where, when."""
    first: dict[str, CostRow] = {}
    for r in report.rows:
        if r.price is not None:
            first.setdefault(r.price_system, r)
    lines = []
    for i, name in enumerate(_priced_systems(report), start=1):
        r = first[name]
        lines.append(
            f"[{i}] {name}: {money(r.price, r.currency)} {r.price_kind} "
            f"({r.price_includes}); source: {r.price_source}, {r.price_date}"
        )
    return lines
