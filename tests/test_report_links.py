"""Links the report writes: never a scheme taken from a folder or file name, absolute
below --link-base, and PNG charts inside the folder asked for (docs/report.md, "Links").
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner
from report_browser import Browser

from mllog_check.cli import cli
from mllog_check.html_report import build_report
from mllog_check.html_report.links import LinkBaseError, check_link_base, log_link

HOSTILE = "javascript:void(document.title='pwned')"


@pytest.mark.parametrize(
    ("shown", "href"),
    [
        (
            f"{HOSTILE}/results/s/b/result_0.txt",
            "./javascript%3Avoid%28document.title%3D%27pwned%27%29",
        ),
        ("Org/results/s/b/result 1.txt", "./Org/results/s/b/result%201.txt"),
        ("data:text/html,x", "./data%3Atext/html%2Cx"),
    ],
)
def test_relative_links_cannot_carry_a_scheme(shown: str, href: str) -> None:
    link = log_link(shown, "/r", "/r")
    assert link.startswith(href)
    assert urlsplit(link).scheme == ""  # a browser reads no scheme in it
    assert unquote(link[2:]) == shown


def test_links_above_the_report_and_outside_the_tree() -> None:
    assert log_link("Org/x.txt", "/r/v1.0", "/r/out") == "../v1.0/Org/x.txt"
    assert log_link("/elsewhere/x.txt", "/r", "/r", "https://h/t") == "file:///elsewhere/x.txt"


def test_link_base_makes_every_link_absolute() -> None:
    base = "https://github.com/mlcommons/training_results_v5.1/blob/main"
    link = log_link(f"{HOSTILE}/results/x.txt", "/r", "/out", base)
    assert link.startswith(base + "/javascript%3Avoid") and urlsplit(link).scheme == "https"
    assert (
        log_link("Org/a b.txt", "/r", "/out", "file:///srv/v5.1/")
        == "file:///srv/v5.1/Org/a%20b.txt"
    )
    for bad in ("javascript:alert(1)", "data:text/html,x", "results/v5.1", "https://h/a b"):
        with pytest.raises(LinkBaseError):
            check_link_base(bad)


def _hostile_round(corpus: Path, root: Path) -> Path:
    """A v1.0 round whose org folder is named like a script URL, holding real logs
    (three of the five runs ResNet needs: a problem, so a link, on the folder)."""
    source = corpus / "v1.0" / "Graphcore"
    org = root / "v1.0" / HOSTILE
    bench = org / "results" / "ipu-pod16-TF1" / "resnet"
    bench.mkdir(parents=True)
    for log in sorted((source / "results" / "ipu-pod16-TF1" / "resnet").glob("result_*.txt")):
        shutil.copy(log, bench / log.name)
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / "ipu-pod16-TF1.json", org / "systems")
    return root / "v1.0"


@pytest.mark.corpus
def test_clicking_a_hostile_link_runs_nothing(
    corpus: Path, browser: Browser, tmp_path: Path
) -> None:
    round_dir = _hostile_round(corpus, tmp_path)
    html = round_dir / "report.html"  # the default: `report . --out report.html`
    build_report([str(round_dir)], html, jobs=1)
    seen = browser.open(html, keep_page=True)
    page = seen.page
    links = page.locator("#problems a.loc")
    assert links.count() >= 1
    hrefs = links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert all(h.startswith(("./", "../")) for h in hrefs), hrefs
    title = page.title()
    first = links.first
    first.evaluate("a => a.target = ''")
    first.click()
    page.wait_for_load_state()
    assert page.url.startswith("file:")  # the log itself, opened as a file
    assert "pwned" not in page.title() and "pwned" not in (title or "")
    assert f"/v1.0/{HOSTILE}/results/ipu-pod16-TF1/resnet" in unquote(page.url)
    # The control: the same name written as a plain relative path (as the report wrote
    # it before) is a javascript: URL, and clicking it runs the code.
    page.go_back()
    page.wait_for_selector("html[data-ready='1']")
    page.evaluate(
        "document.dispatchEvent(new Event('mllog-draw-all'))"
    )  # charts below the first screen too
    page.wait_for_selector("html[data-drawn='1']")
    raw = f"{HOSTILE}/results/ipu-pod16-TF1/resnet/result_0.txt"
    page.locator("#problems a.loc").first.evaluate("(a, raw) => a.setAttribute('href', raw)", raw)
    page.locator("#problems a.loc").first.click()
    # the script sets the title: wait for that (bounded), not a fixed 200 ms
    page.wait_for_function("document.title === 'pwned'", timeout=60_000)
    assert page.title() == "pwned"
    page.context.close()


@pytest.mark.corpus
def test_link_base_in_the_page(corpus: Path, browser: Browser, tmp_path: Path) -> None:
    round_dir = _hostile_round(corpus, tmp_path)
    base = "https://github.com/mlcommons/training_results_v1.0/tree/master"
    html = tmp_path / "out" / "report.html"
    args = ["report", str(round_dir), "--out", str(html), "--link-base", base, "-j", "1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    seen = browser.open(html, keep_page=True)
    hrefs = seen.page.locator("a.loc").evaluate_all(
        "links => links.map(a => a.href)"  # resolved by the browser
    )
    assert hrefs and all(h.startswith(base + "/") for h in hrefs), hrefs
    seen.page.context.close()
    bad = CliRunner().invoke(cli, [*args[:-4], "--link-base", "javascript:alert(1)"])
    assert bad.exit_code == 2 and "--link-base" in bad.stderr


@pytest.mark.corpus
def test_png_charts_go_inside_the_folder_asked_for(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.d" / "report"
    org = corpus / "v1.0" / "Graphcore"
    args = ["report", str(org), "--format", "png", "--out", str(out), "-j", "1"]
    result = CliRunner().invoke(cli, [*args, "--benchmark", "resnet"])
    assert result.exit_code in (0, 1), result.output
    plots = tmp_path / "o.d" / "report_plots"
    assert sorted(p.suffix for p in plots.iterdir()) and all(
        p.suffix == ".png" for p in plots.iterdir()
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.d"]  # nothing beside o.d


@pytest.mark.corpus
def test_long_problem_groups_go_to_a_side_file(corpus: Path, tmp_path: Path) -> None:
    round_dir = _hostile_round(corpus, tmp_path)
    (round_dir / HOSTILE / "results" / "ipu-pod16-TF1" / "resnet" / "result_9.txt").write_text(
        "\n".join(f":::MLLOG {{bad {i}\x1b[31m" for i in range(30)) + "\n", encoding="utf-8"
    )
    html = tmp_path / "out" / "r.html"
    build_report([str(round_dir)], html, jobs=1, inline_problems=3)
    side = tmp_path / "out" / "r_problems.txt"
    page = html.read_text(encoding="utf-8")
    lines = side.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 30 and "\x1b" not in side.read_text(encoding="utf-8")
    assert sum(f"result_9.txt:{n}:" in text for text in lines for n in range(1, 31)) == 30
    assert 'href="./r_problems.txt"' in page and "more MLS" in page
    shown = page.count("result_9.txt:")
    assert 3 <= shown < 30  # three per code inline, the rest in the side file


def test_packed_point_data_cannot_leave_its_attribute() -> None:
    import html
    import json

    from mllog_check.html_report.charts import _single_quoted

    data = json.dumps([[1, 2, "", "x' onmouseover='alert(1)' </script><b>&amp;", 3]])
    packed = str(_single_quoted(data))
    assert "'" not in packed and "<" not in packed and ">" not in packed
    assert json.loads(html.unescape(packed)) == json.loads(data)
