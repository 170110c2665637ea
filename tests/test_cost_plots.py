"""Cost plots that read right (docs/cost.md, "Plots"): prices' `$` signs stay text, the
footnote sits below the tick labels and the axis label, the saved figure grows to hold
seven systems' legend and the footnote, and a refused --scale-plot writes no --plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_cost import FakeScore

from mllog_check.cli import cli
from mllog_check.cost import compare, load_catalog
from mllog_check.cost.plot import render, render_scale

SYSTEMS = 7


def _catalog(tmp_path: Path) -> Path:
    rows = ["system,aliases,price,currency,kind,includes,source,date,description"]
    for i in range(SYSTEMS):
        rows.append(
            f"Cloud system number {i} with a long name,sys{i},{20 + i}.50,USD,cloud-hourly,"
            f'"one instance, $ {i} per hour",a source listing $ {i} and $ {i + 1},2026-01-01,x'
        )
    path = tmp_path / "prices.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _report(tmp_path: Path, benchmarks: tuple[str, ...] = ("flux1",)) -> Any:
    scores = [
        FakeScore("Org", f"sys{i}", f"sys{i}", bench, 10.0 + i, ruleset="5.1.0", nodes=1)
        for i in range(SYSTEMS)
        for bench in benchmarks
    ]
    return compare(scores, load_catalog(_catalog(tmp_path)), baseline="sys0")


@pytest.fixture
def saved(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every figure saved, with the size it had before saving."""
    from matplotlib.figure import Figure

    figures: list[Any] = []
    original = Figure.savefig

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        figures.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return figures


@pytest.mark.parametrize("draw", [render, render_scale])
def test_plot_text_layout_and_size(tmp_path: Path, saved: list[Any], draw: Any) -> None:
    from matplotlib.text import Text
    from PIL import Image

    report = _report(tmp_path)
    out = tmp_path / "plot.png"
    draw(report, out)
    (fig,) = saved
    texts = [t for t in fig.findobj(Text) if t.get_text()]
    assert any("$" in t.get_text() for t in texts)
    assert all(not t.get_parse_math() for t in texts)  # "$ 1 and $ 2" is no formula
    renderer = fig.canvas.get_renderer()
    (ax,) = fig.axes
    axes_box = ax.get_tightbbox(renderer)  # tick labels and axis label included
    footnote = next(t for t in fig.texts if "Prices:" in t.get_text())
    assert footnote.get_window_extent(renderer).y1 < axes_box.y0  # below, not over
    legend = ax.get_legend().get_window_extent(renderer)
    assert len(ax.get_legend().get_texts()) == SYSTEMS
    width, height = Image.open(out).size
    # The saved image holds the legend's right edge and the footnote's bottom: it grew.
    left = min(axes_box.x0, footnote.get_window_extent(renderer).x0)
    assert width >= legend.x1 - left
    assert height >= axes_box.y1 - footnote.get_window_extent(renderer).y0
    assert width > fig.bbox.width  # wider than the 7.5 in it was made at


def test_refused_scale_plot_writes_no_plot(tmp_path: Path) -> None:
    from conftest import FIXTURES

    plot, scale = tmp_path / "p.png", tmp_path / "s.png"
    args = ["cost", str(FIXTURES / "score" / "olympic"), "--ruleset", "1.0.0"]
    args += ["--prices", str(FIXTURES / "prices" / "sample.csv")]
    result = CliRunner().invoke(cli, [*args, "--plot", str(plot), "--scale-plot", str(scale)])
    assert result.exit_code == 2, result.output
    assert not plot.exists() and not scale.exists()
    bad = CliRunner().invoke(cli, [*args, "--plot", str(plot), "--scale-plot", "s.pdf"])
    assert bad.exit_code == 2 and not plot.exists()


def test_an_absolute_plot_keeps_one_unit_on_its_axis(tmp_path: Path, saved: list[Any]) -> None:
    # A purchase price (runs/day per $1M) and an hourly one (runs per $1k): different
    # quantities, so the hourly rows are not drawn on the purchase axis, and it says so.
    from test_cost_runs import SAMPLE

    dgx = FakeScore("NVIDIA", "dgxa100_ngc21.05_mxnet", "x", "resnet", 28.77, ruleset="1.0.0")
    oci = FakeScore("Oracle", "1xBM.GPU.B200.8", "BM.GPU.B200.8", "flux1", 84.8, ruleset="5.1.0")
    report = compare([dgx, oci], load_catalog(SAMPLE))
    render(report, tmp_path / "mixed.png")
    ax = saved[-1].axes[0]
    assert ax.get_ylabel() == "perf/$ (runs/day per $1M)"
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["resnet"]
    texts = " ".join(t.get_text() for t in saved[-1].texts)
    assert "Not drawn: cloud-hourly rows (1xBM.GPU.B200.8 flux1)" in texts


def _svg_tick_texts(svg: str, axis: int) -> list[str]:
    """The text of each tick label of the SVG's axis (matplotlib writes a text drawn as
    paths after a comment holding it: ``<!-- 16 -->``)."""
    import re

    start = svg.index(f'id="matplotlib.axis_{axis}"')
    end = svg.find('id="matplotlib.axis_', start + 1)
    part = svg[start : end if end > 0 else len(svg)]
    ticks = re.split(r'<g id="[xy]tick_\d+">', part)[1:]
    return [m.group(1).strip() for t in ticks for m in [re.search(r"<!--(.*?)-->", t)] if m]


def test_the_scale_plot_ticks_read_as_plain_numbers(tmp_path: Path) -> None:
    # Was: with mathtext off the log axis printed `$\mathdefault{2^{3}}$`.
    from test_cost_runs import SAMPLE

    scores = [
        FakeScore(
            "Oracle",
            f"{n}xBM.GPU.B200.8",
            "BM.GPU.B200.8",
            "flux1",
            100.0 / n,
            ruleset="5.1.0",
            accelerators=8 * n,
        )
        for n in (1, 2, 4, 9)
    ]
    report = compare(scores, load_catalog(SAMPLE))
    out = tmp_path / "scale.svg"
    render_scale(report, out)
    svg = out.read_text(encoding="utf-8")
    assert "mathdefault" not in svg and "^{" not in svg
    xticks = _svg_tick_texts(svg, 1)
    assert xticks, "no x tick label drawn"
    assert all(t.replace(",", "").isdigit() for t in xticks), xticks
    # Every accelerator count that is a power of two, in range, has its tick.
    assert {"8", "16", "32"} <= set(xticks)
    for t in _svg_tick_texts(svg, 2):  # the linear cost axis too
        assert "$" not in t and "mathdefault" not in t
