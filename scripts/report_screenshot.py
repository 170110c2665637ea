"""Make docs/report.png: a screenshot of the report of a real corpus round.

    python scripts/report_screenshot.py [--corpus ../shared/corpus] [--round v1.0]
        [--benchmark bert] [--out docs/report.png]

Builds the report of the round (``mllog_check.html_report.build_report``), opens it in
headless Chromium (Debian's /usr/bin/chromium through playwright) and stacks two views:
the top of the page (title, contents, summary) and one benchmark's section (time to
train per run, convergence curves with the reference band).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1280


def _shots(page_path: Path, benchmark: str, top_height: int, section_height: int) -> list[bytes]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": WIDTH, "height": 1000}, color_scheme="light")
        tab.goto(page_path.resolve().as_uri(), wait_until="load")
        tab.wait_for_selector("html[data-ready='1']")
        tab.evaluate(
            "document.dispatchEvent(new Event('mllog-draw-all'))"
        )  # charts below the first screen too
        tab.wait_for_selector("html[data-drawn='1']")
        top = tab.screenshot(
            full_page=True, clip={"x": 0, "y": 0, "width": WIDTH, "height": top_height}
        )
        tab.set_viewport_size({"width": WIDTH, "height": section_height})
        tab.evaluate(f"document.getElementById('bench-{benchmark}').scrollIntoView()")
        # A point focused from the keyboard shows its tip: the picture shows one too.
        kept = f"#bench-{benchmark} figure.chart-strip .pt.kept"
        tab.evaluate(
            f"Array.from(document.querySelectorAll('{kept}')).pop().focus({{preventScroll: true}})"
        )
        section = tab.screenshot()
        browser.close()
    return [top, section]


def _stack(images: list[bytes], out: Path) -> None:
    from PIL import Image, ImageDraw

    parts = [Image.open(io.BytesIO(data)).convert("RGB") for data in images]
    gap = 14
    height = sum(p.height for p in parts) + gap * (len(parts) - 1)
    canvas = Image.new("RGB", (WIDTH, height), "white")
    y = 0
    for index, part in enumerate(parts):
        canvas.paste(part, (0, y))
        y += part.height
        if index < len(parts) - 1:
            ImageDraw.Draw(canvas).rectangle((0, y, WIDTH, y + gap), fill="#d7dce3")
            y += gap
    # A palette image keeps the file small; the page uses few colours.
    canvas.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--round", default="v1.0")
    parser.add_argument("--benchmark", default="bert")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--top-height", type=int, default=640)
    parser.add_argument("--section-height", type=int, default=900)
    args = parser.parse_args()
    from mllog_check.html_report import build_report

    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        build_report([str(args.corpus / args.round)], page, jobs=2)
        shots = _shots(page, args.benchmark, args.top_height, args.section_height)
    _stack(shots, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
