"""Bar chart of perf/$ relative to the baseline, per benchmark, with sources in a footnote.

matplotlib's object API with the Agg canvas: no pyplot global state, no display.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from .compare import CostError, CostReport
from .output import sources

FORMATS = (".png", ".svg")


def render(report: CostReport, path: str | Path) -> None:
    """Write the chart to ``path`` (.png or .svg)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CostError(f"{path}: plot file must end in .png or .svg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    relative = report.baseline is not None
    rows = [r for r in report.rows if r.perf_per_dollar is not None]
    benches = sorted({r.benchmark for r in rows})
    systems = sorted({r.system for r in rows})
    fig = Figure(figsize=(7.5, 4.6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.1, 0.34, 0.62, 0.56))
    width = 0.8 / max(len(systems), 1)
    for i, system in enumerate(systems):
        xs, heights = [], []
        for j, bench in enumerate(benches):
            for r in rows:
                if r.system == system and r.benchmark == bench:
                    value = r.ratio_to_baseline if relative else r.perf_per_dollar
                    if value is not None:
                        xs.append(j - 0.4 + width * (i + 0.5))
                        heights.append(value)
        bars = ax.bar(xs, heights, width=width, label=system)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    if relative:
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_ylabel(f"perf/$ relative to {report.baseline}", fontsize=8)
    else:
        ax.set_ylabel(f"perf/$ ({report.perf_unit})", fontsize=8)
    ax.set_xticks(range(len(benches)), benches)
    ax.set_title("Performance per dollar (not an official MLPerf metric)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.text(0.02, 0.02, _footnote(report), fontsize=6, va="bottom", family="sans-serif")
    fig.savefig(str(path), format=suffix[1:], metadata=_metadata(suffix))


def _footnote(report: CostReport) -> str:
    lines = ["Prices: " + line for line in sources(report)]
    lines.append(report.note)
    lines.extend(report.footnotes)
    wrapped = [textwrap.fill(line, 150, subsequent_indent="    ") for line in lines]
    return "\n".join(wrapped)


def _metadata(suffix: str) -> dict[str, str | None]:
    # Fixed metadata so the same report renders to the same bytes (no dates).
    if suffix == ".svg":
        return {"Date": None, "Creator": "mllog-check"}
    return {"Software": "mllog-check"}
