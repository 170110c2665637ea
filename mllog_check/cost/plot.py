"""Bar chart of perf/$ relative to the baseline, per benchmark, with sources in a footnote.

matplotlib's object API with the Agg canvas: no pyplot global state, no display. Text
is never read as mathtext (prices hold ``$`` signs: two of them would typeset what lies
between), the footnote is placed below everything the axes draw (tick labels, axis
label), and the saved figure grows to hold the legend and the footnote whatever their
size (docs/cost.md, "Plots").
"""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

from .compare import CostError, CostReport, CostRow
from .output import sources

FORMATS = (".png", ".svg")


def render(report: CostReport, path: str | Path) -> None:
    """Write the chart to ``path`` (.png or .svg)."""
    suffix = check_plot_path(path)
    with rc_context_for_text():
        _render(report, path, suffix)


def _render(report: CostReport, path: str | Path, suffix: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    relative = report.baseline is not None
    rows, unit, left_out = _one_unit([r for r in report.rows if r.perf is not None], relative)
    labels = _labels(rows)
    benches = sorted({r.benchmark for r in rows})
    series = sorted(set(labels.values()))
    fig = Figure(figsize=(7.5, 4.6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.1, 0.3, 0.6, 0.6))
    width = 0.8 / max(len(series), 1)
    for i, label in enumerate(series):
        xs, heights = [], []
        for j, bench in enumerate(benches):
            for r in rows:
                value = r.ratio_to_baseline if relative else r.perf
                if labels[id(r)] == label and r.benchmark == bench and value is not None:
                    xs.append(j - 0.4 + width * (i + 0.5))
                    heights.append(value)
        bars = ax.bar(xs, heights, width=width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    if relative:
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_ylabel(f"perf/$ relative to {report.baseline}", fontsize=8)
    else:
        ax.set_ylabel(f"perf/$ ({unit})", fontsize=8)
    ticks = [f"{b}\n{_divisions(rows, b)}" for b in benches]
    ax.set_xticks(range(len(benches)), ticks)
    ax.set_title("Performance per dollar (not an official MLPerf metric)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    _save(fig, ax, _footnote(report, left_out), 6, path, suffix)


def _one_unit(rows: list[CostRow], relative: bool) -> tuple[list[CostRow], str, str]:
    """One unit on the axis: absolute perf/$ of purchase and cloud-hourly prices are
    different quantities (docs/cost.md), so the hourly rows are left out, and said so."""
    from .compare import HOURLY_PERF_UNIT, PERF_UNIT

    hourly = [r for r in rows if r.price_kind == "cloud-hourly"]
    if relative or not hourly:
        return rows, PERF_UNIT, ""
    if len(hourly) == len(rows):
        return rows, HOURLY_PERF_UNIT, ""
    names = ", ".join(sorted({f"{r.system} {r.benchmark}" for r in hourly}))
    why = f"Not drawn: cloud-hourly rows ({names}), whose perf/$ is in {HOURLY_PERF_UNIT}."
    return [r for r in rows if r not in hourly], PERF_UNIT, why


def rc_context_for_text() -> Any:
    """matplotlib settings for every cost plot: no mathtext, stable SVG ids."""
    from matplotlib import rc_context

    # A fixed salt makes SVG element ids, hence the file, the same on every run.
    return rc_context({"text.parse_math": False, "svg.hashsalt": "mllog-check"})


def _plain_log_ticks(axis: Any) -> None:
    """Ticks of a log axis as plain numbers (8, 16, 1,024): its default formatter writes
    mathtext (``$\\mathdefault{2^{3}}$``), printed as is since every cost plot turns
    mathtext off (docs/cost.md, "Plots")."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=2))
    axis.set_major_formatter(FuncFormatter(lambda value, _: _plain(value)))
    axis.set_minor_formatter(NullFormatter())


def _plain(value: float) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _save(fig: Any, ax: Any, footnote: str, size: float, path: str | Path, suffix: str) -> None:
    """The footnote just below what the axes draw, then the figure saved grown (or
    trimmed) to everything on it, legend included."""
    renderer = fig.canvas.get_renderer()
    below = ax.get_tightbbox(renderer).y0  # px from the bottom: tick labels, axis label
    pad = 8
    y = (below - pad) / fig.bbox.height
    x = 0.02
    fig.text(x, y, footnote, fontsize=size, va="top", family="sans-serif")
    from ..outputs import open_output

    with open_output(path, binary=True) as out:  # never through a link (docs/security.md)
        fig.savefig(
            out,
            format=suffix[1:],
            metadata=_metadata(suffix),
            bbox_inches="tight",
            pad_inches=0.15,
        )


def _divisions(rows: list[CostRow], benchmark: str) -> str:
    return "/".join(sorted({r.division for r in rows if r.benchmark == benchmark}))


def _labels(rows: list[CostRow]) -> dict[int, str]:
    """Bars are named by priced system; by folder too when one price covers two rows."""
    seen = Counter((r.benchmark, r.price_system) for r in rows)
    return {
        id(r): r.price_system
        if seen[(r.benchmark, r.price_system)] == 1
        else f"{r.price_system} ({r.system})"
        for r in rows
    }


def _footnote(report: CostReport, left_out: str = "") -> str:
    lines = ["Prices: " + line for line in sources(report)]
    lines.append(report.note)
    lines.extend(report.footnotes)
    if left_out:
        lines.append(left_out)
    wrapped = [textwrap.fill(line, 150, subsequent_indent="    ") for line in lines]
    return "\n".join(wrapped)


def _metadata(suffix: str) -> dict[str, str | None]:
    # Fixed metadata so the same report renders to the same bytes (no dates).
    if suffix == ".svg":
        return {"Date": None, "Creator": "mllog-check"}
    return {"Software": "mllog-check"}


def check_plot_path(path: str | Path) -> str:
    """The plot's format (.png or .svg), or CostError."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CostError(f"{path}: plot file must end in .png or .svg")
    return suffix


def scale_rows(report: CostReport) -> list[CostRow]:
    """The rows a scale plot draws (one benchmark), or CostError: asked before any plot
    is written, so that a refused --scale-plot leaves no --plot file behind."""
    rows = [r for r in report.rows if r.total_per_run is not None and r.accelerators]
    benches = sorted({r.benchmark for r in rows})
    if len(benches) != 1:
        found = ", ".join(benches) or "none with a cost and an accelerator count"
        raise CostError(f"--scale-plot draws one benchmark (found: {found}): give --benchmark")
    return rows


def render_scale(report: CostReport, path: str | Path) -> None:
    """Cost per run against system scale (accelerators) for one benchmark (.png/.svg)."""
    suffix = check_plot_path(path)
    rows = scale_rows(report)
    with rc_context_for_text():
        _render_scale(report, rows, path, suffix)


def _render_scale(report: CostReport, rows: list[CostRow], path: str | Path, suffix: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    benches = sorted({r.benchmark for r in rows})

    fig = Figure(figsize=(7.5, 4.6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.1, 0.3, 0.6, 0.6))
    series = sorted({(r.org, r.price_system, r.division) for r in rows})
    for org, system, division in series:
        points = sorted(
            (r.accelerators or 0, r.total_per_run or 0.0)
            for r in rows
            if (r.org, r.price_system, r.division) == (org, system, division)
        )
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        ax.plot(xs, ys, marker="o", label=f"{org} {system} ({division})")
        for x, y in points:
            ax.annotate(f"{y:,.0f}", (x, y), fontsize=7, textcoords="offset points", xytext=(3, 3))
    ax.set_xscale("log", base=2)
    _plain_log_ticks(ax.xaxis)
    ax.set_xlabel("accelerators", fontsize=8)
    currency = rows[0].currency
    ax.set_ylabel(f"cost per training run ({currency})", fontsize=8)
    ax.set_title(f"{benches[0]}: cost per run against scale (not an MLPerf metric)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    lines = ["Prices: " + line for line in sources(report)]
    lines += report.assumption_lines(currency)
    lines.append(report.note)
    wrapped = [textwrap.fill(line, 150, subsequent_indent="    ") for line in lines]
    _save(fig, ax, "\n".join(wrapped), 5.5, path, suffix)
