"""Charts as data (series of points with tips), and their SVG geometry.

A chart is built once from the report's rows; ``geometry`` turns it into pixel
positions for the HTML template (inline SVG) and ``plots`` draws the same data
with matplotlib for slides. Every drawn point carries its tip: run, file:line, value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

import orjson

STRIP_ROW = 26  # px per category row
PALETTE = 8  # series colours, CSS classes s0..s7


@dataclass
class Point:
    x: float
    y: float  # curve: the value; strip and bar: the row index
    tip: str
    state: str = ""  # strip: kept, dropped, failed; curve: end (the last evaluation)
    line: int | None = None  # curve: the evaluation's line in its log (the tip ends with it)


@dataclass
class Series:
    name: str
    points: list[Point]
    color: int = 0
    line: bool = False  # connect the points
    dashed: bool = False
    tip: str = ""
    # Curve points: what every point's tip starts and ends with (the file, its path), kept
    # once per series; a point's whole tip is ``full_tip(point)``.
    tip_head: str = ""
    tip_tail: str = ""
    # Curve points whose tip reads "<x_before><x><x_after> · <y>": the page writes the two
    # numbers and composes the text (docs/report.md, "Size").
    x_before: str = ""
    x_after: str = ""

    def full_tip(self, point: Point) -> str:
        line = "" if point.line is None else str(point.line)
        return f"{self.tip_head}{point.tip}{self.tip_tail}{line}"


@dataclass
class Chart:
    id: str
    kind: str  # strip (a row per category, a dot per run), curve, bar
    title: str
    x_label: str
    y_label: str = ""
    series: list[Series] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)  # strip and bar categories
    x_log: bool = False
    hlines: list[tuple[float, str]] = field(default_factory=list)  # targets
    vlines: list[tuple[float, str]] = field(default_factory=list)  # minimum acceptable
    vbands: list[tuple[float, float, str]] = field(default_factory=list)  # reference band
    marks: list[tuple[float, int, str]] = field(default_factory=list)  # olympic means
    caption: str = ""
    context: str = ""  # what the page's heading says and a lone image must: the benchmark

    @property
    def point_count(self) -> int:
        return sum(len(s.points) for s in self.series)


def fmt(value: float | None, digits: int = 4) -> str:
    """A number for a label or tip: ``digits`` significant digits, thousands separated."""
    if value is None or not math.isfinite(value):
        return "–"
    if value != 0 and abs(value) >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    return f"{value:,.{digits}g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.3g}"


# -- scales -------------------------------------------------------------------------


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / count
    if not math.isfinite(raw) or raw <= 0:  # a range beyond floats (1.79e308 logged)
        return []
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= step * factor:
            step *= factor
            break
    first = math.ceil(low / step - 1e-9) * step
    ticks, value = [], first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def log_ticks(low: float, high: float) -> list[float]:
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0**exponent
            if low <= value <= high:
                ticks.append(value)
    return ticks


@dataclass
class Scale:
    low: float
    high: float
    start: float  # px
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        if self.log:
            low, high, value = math.log10(self.low), math.log10(self.high), math.log10(value)
        else:
            low, high = self.low, self.high
        share = 0.5 if high == low else (value - low) / (high - low)
        return round(self.start + share * (self.end - self.start), 1)


def _extent(values: list[float], log: bool, pad: float = 0.05) -> tuple[float, float]:
    if not values:
        return (1.0, 10.0) if log else (0.0, 1.0)
    low, high = min(values), max(values)
    if log:
        return low / 1.15, high * 1.15
    if low == high:
        return low - (abs(low) or 1.0) * 0.1, high + (abs(high) or 1.0) * 0.1
    span = high - low
    return low - span * pad, high + span * pad


# -- geometry for the template ------------------------------------------------------


class XMark(TypedDict):
    """An x tick or a vertical line (minimum acceptable): its pixel and label."""

    x: float
    label: str


class YMark(TypedDict):
    """A y tick or a horizontal line (a target): its pixel and label."""

    y: float
    label: str


class Band(TypedDict):
    """A vertical band (the reference runs' range) between two pixels."""

    x0: float
    x1: float
    label: str


class RowLabel(TypedDict):
    """A strip or bar chart's category: its pixel, shortened and full label."""

    y: float
    label: str
    full: str


class MeanMark(TypedDict):
    """A strip chart's mark (an olympic mean) and its tip."""

    x: float
    y: float
    tip: str


class PointView(TypedDict):
    """A strip or bar point as drawn; a bar's also its base, top and height."""

    x: float
    y: float
    tip: str
    state: str
    x0: NotRequired[float]
    y0: NotRequired[float]
    h: NotRequired[float]


class SeriesView(TypedDict):
    """A series as the template draws it: strip and bar points as elements (``pts``),
    curve points as JSON in ``data`` with the parts of their tips (head, tail, xb, xa)."""

    name: str
    color: int
    tip: str
    pts: list[PointView]
    count: int
    data: str  # markupsafe.Markup: JSON for a single-quoted attribute
    head: str
    tail: str
    xb: str
    xa: str
    line: bool
    d: str
    dashed: bool


class Geometry(TypedDict):
    """What every chart template reads: box, axes, series; a part a kind of chart does
    not draw (rows, marks, y ticks, lines, bands) is empty."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    xticks: list[XMark]
    series: list[SeriesView]
    yticks: list[YMark]
    rows: list[RowLabel]
    marks: list[MeanMark]
    hlines: list[YMark]
    vlines: list[XMark]
    vbands: list[Band]


def geometry(chart: Chart) -> Geometry:
    if chart.kind == "curve":
        return _curve_geometry(chart)
    return _row_geometry(chart)


def _x_values(chart: Chart) -> list[float]:
    xs = [p.x for s in chart.series for p in s.points]
    xs += [m[0] for m in chart.marks] + [v[0] for v in chart.vlines]
    xs += [b for band in chart.vbands for b in band[:2]]
    if chart.kind == "bar":
        xs.append(0.0)
    return [x for x in xs if math.isfinite(x) and (x > 0 or not chart.x_log)]


def _x_axis(chart: Chart, left: float, right: float) -> tuple[Scale, list[XMark]]:
    low, high = _extent(_x_values(chart), chart.x_log)
    if chart.kind == "bar":
        low = 0.0
    ticks = log_ticks(low, high) if chart.x_log else nice_ticks(low, high)
    if not chart.x_log and ticks:
        low, high = min(low, ticks[0]), max(high, ticks[-1])
    scale = Scale(low, high, left, right, chart.x_log)
    return scale, [
        {"x": scale(t), "label": label} for t, label in zip(ticks, tick_labels(ticks), strict=True)
    ]


def tick_labels(ticks: list[float]) -> list[str]:
    """Labels with as few digits as tell every tick apart: 22.1 22.15 22.2, never
    22.1 22.1 22.2 (three significant digits, more only where two would read alike)."""
    for digits in range(3, 10):
        labels = [fmt(t, digits) for t in ticks]
        if len(set(labels)) == len(labels):
            return labels
    return [repr(t) for t in ticks]


def _row_geometry(chart: Chart) -> Geometry:
    width, left, right, top = 760, 250, 740, 16
    height = top + STRIP_ROW * max(len(chart.rows), 1) + 44
    bottom = height - 44
    x, xticks = _x_axis(chart, left, right)

    def row_y(row: float) -> float:
        return round(top + STRIP_ROW * (row + 0.5), 1)

    series: list[SeriesView] = []
    for s in chart.series:
        points: list[PointView] = []
        for p in s.points:
            state = p.state
            if chart.x_log and p.x < x.low:  # 0 min has no place on a log axis: at its edge
                state = f"{state} offscale".strip()
            item: PointView = {
                "x": x(max(p.x, x.low)),
                "y": row_y(p.y),
                "tip": p.tip,
                "state": state,
            }
            if chart.kind == "bar":
                item["x0"] = x(0.0)
                item["y0"] = row_y(p.y) - STRIP_ROW * 0.35
                item["h"] = STRIP_ROW * 0.7
            points.append(item)
        series.append(
            {
                "name": s.name,
                "color": s.color % PALETTE,
                "tip": s.tip,
                "pts": points,
                "count": len(points),
                "data": "",
                "head": "",
                "tail": "",
                "xb": "",
                "xa": "",
                "line": False,
                "d": "",
                "dashed": False,
            }
        )
    return _frame(
        (width, height, left, right, top, bottom),
        xticks,
        series,
        rows=[
            {"y": row_y(i), "label": _short(label), "full": label}
            for i, label in enumerate(chart.rows)
        ],
        marks=[
            {"x": x(m[0]), "y": row_y(m[1]), "tip": m[2]}
            for m in chart.marks
            if not chart.x_log or m[0] > 0
        ],
    )


def _frame(
    box: tuple[int, int, int, int, int, int],
    xticks: list[XMark],
    series: list[SeriesView],
    *,
    yticks: list[YMark] | None = None,
    rows: list[RowLabel] | None = None,
    marks: list[MeanMark] | None = None,
    hlines: list[YMark] | None = None,
    vlines: list[XMark] | None = None,
    vbands: list[Band] | None = None,
) -> Geometry:
    """A chart's ``Geometry``; the parts its kind does not draw are empty."""
    width, height, left, right, top, bottom = box
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": right,
        "top": top,
        "bottom": bottom,
        "xticks": xticks,
        "series": series,
        "yticks": yticks or [],
        "rows": rows or [],
        "marks": marks or [],
        "hlines": hlines or [],
        "vlines": vlines or [],
        "vbands": vbands or [],
    }


def _short(label: str, limit: int = 38) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _shown(value: float) -> float | int | None:
    """A value rounded as ``fmt`` shows it (the page writes it back as text): whole
    numbers from 1,000, else four significant digits (three below 0.001)."""
    if not math.isfinite(value):
        return None
    if value != 0 and abs(value) >= 1000:
        # JSON of the page holds 64-bit integers: 1.79e308 logged stays a float
        return round(value) if abs(value) < 2**63 else float(f"{value:.4g}")
    return float(f"{value:.4g}") if abs(value) >= 1e-3 or value == 0 else float(f"{value:.3g}")


def _single_quoted(text: str) -> str:
    """JSON for a single-quoted HTML attribute: its many double quotes stay as they are
    (escaped, each would cost four more bytes); ``&``, ``'``, ``<`` and ``>`` are
    escaped, so nothing in it (a log's path, a value) can end the attribute."""
    from markupsafe import Markup

    escaped = text.replace("&", "&amp;").replace("'", "&#39;")
    return Markup(escaped.replace("<", "&lt;").replace(">", "&gt;"))


def _curve_geometry(chart: Chart) -> Geometry:
    width, height, left, right, top, bottom = 380, 250, 56, 368, 12, 206
    x, xticks = _x_axis(chart, left, right)
    ys = [p.y for s in chart.series for p in s.points] + [h[0] for h in chart.hlines]
    low, high = _extent([v for v in ys if math.isfinite(v)], False)
    ticks = nice_ticks(low, high, 4)
    if ticks:
        low, high = min(low, ticks[0]), max(high, ticks[-1])
    y = Scale(low, high, bottom, top)
    series: list[SeriesView] = []
    for s in chart.series:
        # [px, py, end, x, y, line] per evaluation, drawn by the page's script (thousands
        # of points on a round's page cost the template most of its time as elements).
        # The tip is composed there from the numbers as ``fmt`` writes them, the series'
        # head and tail (file, path) and the line, so each point costs about 30 bytes.
        points = [
            [x(p.x), y(p.y), 1 if p.state == "end" else 0, _shown(p.x), _shown(p.y), p.line]
            for p in s.points
        ]
        series.append(
            {
                "name": s.name,
                "color": s.color % PALETTE,
                "tip": s.tip,
                "pts": [],
                "count": len(points),
                "data": _single_quoted(orjson.dumps(points).decode()),
                "head": s.tip_head,
                "tail": s.tip_tail,
                "xb": s.x_before,
                "xa": s.x_after,
                "line": s.line,
                "d": "",  # drawn by the page's script from the points
                "dashed": s.dashed,
            }
        )
    return _frame(
        (width, height, left, right, top, bottom),
        xticks,
        series,
        yticks=[
            {"y": y(t), "label": label} for t, label in zip(ticks, tick_labels(ticks), strict=True)
        ],
        hlines=[{"y": y(v), "label": label} for v, label in chart.hlines],
        vlines=[{"x": x(v), "label": label} for v, label in chart.vlines],
        vbands=[
            {"x0": x(a), "x1": x(b), "label": label}
            for a, b, label in chart.vbands
            if math.isfinite(a) and math.isfinite(b)
        ],
    )
