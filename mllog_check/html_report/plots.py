"""The report's charts as PNG images for slides (``--plots DIR``), drawn with
matplotlib's object API on the Agg canvas (no pyplot state, no display), from the
same chart data as the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .build import Page
from .charts import PALETTE, Chart

COLORS = ("#1f77b4", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#a6761d", "#4d4d4d")


def write_plots(page: Page, folder: Path) -> list[Path]:
    from .html import MissingDependency

    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as err:
        raise MissingDependency(
            "--plots needs matplotlib: pip install 'mllog-check[analysis]'"
        ) from err
    from ..outputs import open_output, output_folder

    output_folder(folder)  # links refused: docs/security.md
    written = []
    for chart in page.charts():
        rows = max(len(chart.rows), 1)
        size = (6.0, 4.0) if chart.kind == "curve" else (9.0, 1.2 + 0.35 * rows)
        fig = Figure(figsize=size, dpi=120)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if chart.kind == "curve":
            _curve(ax, chart)
        else:
            _rows(ax, chart)
        title = f"{chart.context}: {chart.title}" if chart.context else chart.title
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(chart.x_label, fontsize=8)
        if chart.y_label:
            ax.set_ylabel(chart.y_label, fontsize=8)
        ax.tick_params(labelsize=7)
        fig.tight_layout()
        path = folder / file_name(chart.id)
        with open_output(path, binary=True) as out:
            fig.savefig(out, format="png", metadata={"Software": "mllog-check"})
        written.append(path)
    return written


# File names are at most 255 bytes on common file systems; a chart's id holds org,
# system and benchmark names, each legal alone and too long together.
NAME_BYTES = 200


def file_name(chart_id: str) -> str:
    """``<id>.png``; an id too long for a file name keeps its start and a hash of all."""
    if len(chart_id.encode("utf-8", "surrogateescape")) <= NAME_BYTES:
        return f"{chart_id}.png"
    import hashlib

    digest = hashlib.sha256(chart_id.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    start = chart_id.encode("utf-8", "surrogateescape")[: NAME_BYTES - 17]
    return f"{start.decode('utf-8', 'ignore')}-{digest}.png"


def _color(index: int) -> str:
    return COLORS[index % PALETTE]


def _curve(ax: Any, chart: Chart) -> None:
    for a, b, _ in chart.vbands:
        ax.axvspan(a, b, color="#1f5fbf", alpha=0.12, linewidth=0)
    for x, _ in chart.vlines:
        ax.axvline(x, color="#1f5fbf", linestyle=":", linewidth=1)
    for y, label in chart.hlines:
        ax.axhline(y, color="#c62828", linestyle="--", linewidth=1, label=label)
    for series in chart.series:
        xs = [p.x for p in series.points]
        ys = [p.y for p in series.points]
        style = "--" if series.dashed else "-"
        ax.plot(xs, ys, style, color=_color(series.color), linewidth=1, marker=".", markersize=3)
    if chart.hlines:
        ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.grid(alpha=0.3)


def _rows(ax: Any, chart: Chart) -> None:
    for series in chart.series:
        color = _color(series.color)
        for p in series.points:
            if chart.kind == "bar":
                ax.barh(p.y, p.x, height=0.7, color=color)
            elif "failed" in p.state:
                ax.plot([p.x], [p.y], "x", color="#c62828", markersize=6)
            elif "dropped" in p.state:
                ax.plot([p.x], [p.y], "o", mfc="none", color=color, markersize=6)
            else:
                ax.plot([p.x], [p.y], "o", color=color, markersize=6)
    for x, row, _ in chart.marks:
        ax.plot([x, x], [row - 0.35, row + 0.35], color="black", linewidth=2.5)
    ax.set_yticks(range(len(chart.rows)), chart.rows)
    ax.set_ylim(len(chart.rows) - 0.5, -0.5)
    if chart.x_log:
        ax.set_xscale("log")
    ax.grid(axis="x", alpha=0.3)
