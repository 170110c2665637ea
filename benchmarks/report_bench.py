"""Wall time of `mllog-check report` vs `mllog-check audit` on the same round, and how
fast the page opens in headless Chromium.

    python benchmarks/report_bench.py [--corpus ../shared/corpus] [--round v1.0] [--repeat 3]
    python benchmarks/report_bench.py --limits [--rounds v4.0 v5.1 ...]
    python benchmarks/report_bench.py --record [--reuse DIR/report.html]

Runs both commands as a user does (a fresh process each, the same --jobs), interleaved
``--repeat`` times, and prints the medians and their ratio (the goal: report <= 2 x
audit; the report audits the round, taking the convergence curves from the records its
workers parsed, and renders the page). Then opens the report in headless Chromium
(Debian's /usr/bin/chromium through playwright, when both are installed) and prints the
time until the page's script has run and every chart is in the DOM, and until the
first screenshot (a full render), measured, not asserted.

``--limits``: one report per round (every Training round of the corpus unless
``--rounds`` names some), printing its size and wall time against the limits of a round
report (5 MB, 10 s on this machine with --jobs 2) and the same figures the page had
before curve points were packed (a whole tip per point in a double-quoted attribute,
and each run's path written out; measured by unpacking the page in the same run).

``--record``: the whole corpus in one report (its root: every round; a folder of pages,
docs/report.md "The whole record"), built once (or ``--reuse`` a page built before: the
build takes minutes on this machine), against the limits of the whole record (the main
page at most 10 MB, open in Chromium in at most 3 s); then, by parts, per round: its
detail pages' total size and the slowest to open.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def _browser(page: Path) -> None:
    executable = shutil.which("chromium") or "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: playwright not installed, page load not measured")
        return
    if not os.path.exists(executable):
        print("browser: Chromium not installed, page load not measured")
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1280, "height": 900})
        start = time.perf_counter()
        tab.goto(page.resolve().as_uri(), wait_until="load")
        tab.wait_for_selector("html[data-ready='1']")
        ready = time.perf_counter() - start
        tab.evaluate("document.dispatchEvent(new Event('mllog-draw-all'))")  # and below
        tab.wait_for_selector("html[data-drawn='1']")
        drawn = time.perf_counter() - start
        charts = tab.evaluate("document.querySelectorAll('figure.chart').length")
        points = tab.evaluate("document.querySelectorAll('svg .pt').length")
        tab.screenshot()
        painted = time.perf_counter() - start
        tab.mouse.wheel(0, 20000)  # scrolling down a long page stays responsive
        tab.screenshot()
        scrolled = time.perf_counter() - start - painted
        browser.close()
    size = page.stat().st_size / 1e6
    print(
        f"browser: {size:.1f} MB page, {charts} charts, {points} points: script done in "
        f"{ready:.2f} s (every chart drawn at {drawn:.2f} s), first screenshot at "
        f"{painted:.2f} s, scrolled and painted again in "
        f"{scrolled:.2f} s"
    )


SIZE_LIMIT_MB, TIME_LIMIT_S = 5.0, 10.0
RECORD_MB, RECORD_OPEN_S = 10.0, 3.0  # the whole record's main page


def _open_seconds(tab: object, page: Path) -> float:
    """Seconds until the page's script has run (the first screen's charts drawn; the
    others are drawn when scrolled to or while the page is idle: docs/report.md)."""
    start = time.perf_counter()
    tab.goto(page.resolve().as_uri(), wait_until="load")  # type: ignore[attr-defined]
    tab.wait_for_selector("html[data-ready='1']")  # type: ignore[attr-defined]
    return time.perf_counter() - start


def _round_of(stem: str) -> str:
    """The round of a detail page's file name (pages.py: ``v1-0-bert``, ``hpc-v1-0-deepcam``)."""
    parts = stem.split("-")
    return "-".join(parts[: 3 if parts[0] == "hpc" else 2])


def _record(corpus: Path, reuse: Path | None, jobs: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page = reuse or Path(tmp) / "report.html"
        if reuse is None:
            exe = shutil.which("mllog-check") or sys.exit("mllog-check is not installed")
            took = _timed([exe, "report", str(corpus), "--out", str(page), "-j", str(jobs)])
            print(f"built the whole record in {took:.1f} s (--jobs {jobs})")
        details = sorted((page.parent / f"{page.stem}_pages").glob("*.html"))
        folder = sum(p.stat().st_size for p in [page, *details]) / 1e6
        main_mb = page.stat().st_size / 1e6
        executable = shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            opened = min(_open_seconds(tab, page) for _ in range(3))
            height = tab.evaluate("document.documentElement.scrollHeight")
            verdict = "OK" if main_mb <= RECORD_MB and opened <= RECORD_OPEN_S else "OVER"
            print(
                f"main page: {main_mb:.2f} MB (limit {RECORD_MB:g}), opens in {opened:.2f} s "
                f"(limit {RECORD_OPEN_S:g}; best of 3), {height:,} px tall {verdict}; "
                f"{len(details)} detail pages, {folder:.1f} MB in all"
            )
            by_round: dict[str, list[Path]] = {}
            for detail in details:
                by_round.setdefault(_round_of(detail.stem), []).append(detail)
            for label, files in sorted(by_round.items()):
                size = sum(f.stat().st_size for f in files) / 1e6
                slowest = max((_open_seconds(tab, f), f.name) for f in files)
                print(
                    f"  {label}: {len(files)} pages, {size:.2f} MB, slowest to open "
                    f"{slowest[1]} {slowest[0]:.2f} s"
                )
            browser.close()


def _limits(corpus: Path, rounds: list[str], jobs: int) -> None:
    exe = shutil.which("mllog-check") or sys.exit("mllog-check is not installed")
    names = rounds or sorted(
        p.name
        for p in corpus.iterdir()
        if p.is_dir() and p.name.startswith("v") and p.name != "v0.5"  # Training rounds
    )
    worst_size = worst_time = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            page = Path(tmp) / f"{name}.html"
            took = _timed([exe, "report", str(corpus / name), "--out", str(page), "-j", str(jobs)])
            size = page.stat().st_size / 1e6
            unpacked = _unpacked_size(page) / 1e6
            worst_size, worst_time = max(worst_size, size), max(worst_time, took)
            verdict = "OK" if size <= SIZE_LIMIT_MB and took <= TIME_LIMIT_S else "OVER"
            print(
                f"{name}: {size:.2f} MB (limit {SIZE_LIMIT_MB:g}; {unpacked:.2f} MB with a whole "
                f"tip per point, ratio {size / unpacked:.2f}), {took:.2f} s (limit "
                f"{TIME_LIMIT_S:g}) {verdict}"
            )
    print(
        f"largest: {worst_size:.2f} MB = {worst_size / SIZE_LIMIT_MB:.2f} x the size limit; "
        f"slowest: {worst_time:.2f} s = {worst_time / TIME_LIMIT_S:.2f} x the time limit"
    )


def _unpacked_size(page: Path) -> int:
    """The page's size had every curve point carried its whole tip as text in a
    double-quoted attribute, and every run its path's coordinates (the earlier form)."""
    import html
    import json
    import re

    text = page.read_text(encoding="utf-8")
    now = before = 0
    pattern = (
        r"data-pts='([^']*)' data-head=\"([^\"]*)\" data-tail=\"([^\"]*)\" "
        r"data-xb=\"([^\"]*)\" data-xa=\"([^\"]*)\""
    )
    for pts, head, tail, xb, xa in re.findall(pattern, text):
        points = json.loads(html.unescape(pts))
        head, tail, xb, xa = (html.unescape(v) for v in (head, tail, xb, xa))
        old = [
            [
                p[0],
                p[1],
                "end" if p[2] else "",
                f"{head}{xb}{_num(p[3])}{xa} · {_num(p[4])}{tail}{'' if p[5] is None else p[5]}",
            ]
            for p in points
        ]
        before += len(json.dumps(old, ensure_ascii=False).replace('"', "&#34;").encode())
        before += sum(len(f"L{p[0]},{p[1]} ") for p in points)  # the path's coordinates
        now += len(pts.encode())
    return len(text.encode("utf-8")) - now + before


def _num(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}" if value != 0 and abs(value) >= 1000 else f"{value:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--round", default="v1.0")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limits", action="store_true", help="size and time per round")
    parser.add_argument("--rounds", nargs="*", default=[])
    parser.add_argument("--record", action="store_true", help="the whole corpus in one report")
    parser.add_argument("--reuse", type=Path, help="--record: a whole-record page built before")
    args = parser.parse_args()
    if args.record:
        _record(args.corpus, args.reuse, args.jobs)
        return
    if args.limits:
        _limits(args.corpus, args.rounds, args.jobs)
        return
    round_dir = args.corpus / args.round
    if not round_dir.is_dir():
        sys.exit(f"no corpus round at {round_dir}")
    exe = shutil.which("mllog-check") or sys.exit("mllog-check is not installed")
    jobs = ["--jobs", str(args.jobs)]
    audits, reports = [], []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        for _ in range(args.repeat):
            audits.append(_timed([exe, "audit", str(round_dir), "--out", f"{tmp}/a", *jobs]))
            reports.append(_timed([exe, "report", str(round_dir), "--out", str(page), *jobs]))
        audit, report = statistics.median(audits), statistics.median(reports)
        print(f"round {args.round}, --jobs {args.jobs}, median of {args.repeat} interleaved runs")
        print(f"audit:  {audit:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in audits)})")
        print(f"report: {report:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in reports)})")
        print(f"ratio report/audit: {report / audit:.2f} (goal <= 2)")
        _browser(page)


if __name__ == "__main__":
    main()
