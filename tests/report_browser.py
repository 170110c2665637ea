"""Headless Chromium for the report tests: open a page from disk, record what it does.

Chromium is Debian's package (``/usr/bin/chromium``), driven by the ``playwright``
package without its own browser download. Outside CI a missing browser skips the
browser tests with that reason; with CI=true it fails them.
"""

from __future__ import annotations

import io
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHART_STATS = """() => Array.from(document.querySelectorAll('figure.chart')).map(f => ({
  id: f.id,
  kind: f.dataset.kind,
  series: Number(f.dataset.series),
  points: Number(f.dataset.points),
  drawnSeries: f.querySelectorAll('svg g.series').length,
  drawnPoints: Array.from(f.querySelectorAll('svg g.series')).map(
    g => g.querySelectorAll('.pt').length),
  declaredPoints: Array.from(f.querySelectorAll('svg g.series')).map(
    g => Number(g.dataset.points)),
  width: f.querySelector('svg').getBoundingClientRect().width,
  height: f.querySelector('svg').getBoundingClientRect().height,
}))"""


def chromium_path() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.path.exists("/usr/bin/chromium"):
        found = "/usr/bin/chromium"
    return found


def require_browser() -> str:
    """The Chromium executable; skip (fail under CI=true) when it or playwright is absent."""
    in_ci = os.environ.get("CI") == "true"
    path = chromium_path()
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if in_ci:
            pytest.fail("CI=true but the playwright package is missing (test extras)")
        pytest.skip("playwright not installed (pip install -e '.[test]')")
    if path is None:
        if in_ci:
            pytest.fail("CI=true but Chromium is missing: .ci/run installs Debian's chromium")
        pytest.skip("Chromium not installed (apt-get install -y chromium)")
    return path


@dataclass
class Observed:
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    blocked: list[str] = field(default_factory=list)  # non-file requests, aborted
    charts: list[dict[str, Any]] = field(default_factory=list)
    screenshot: bytes = b""
    load_seconds: float = 0.0
    page: Any = None


class Browser:
    def __init__(self, executable: str) -> None:
        from playwright.sync_api import sync_playwright

        self._manager = sync_playwright()
        self._playwright = self._manager.__enter__()
        self.browser = self._playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox"]
        )

    def close(self) -> None:
        self.browser.close()
        self._manager.__exit__(None, None, None)

    def open(self, html: Path, color_scheme: str = "light", keep_page: bool = False) -> Observed:
        seen = Observed()
        context = self.browser.new_context(
            viewport={"width": 1280, "height": 900}, color_scheme=color_scheme
        )
        page = context.new_page()

        def route(request_route: Any) -> None:
            url = request_route.request.url
            if url.startswith("file:"):
                request_route.continue_()
            else:
                seen.blocked.append(url)
                request_route.abort()

        page.route("**/*", route)
        page.on("request", lambda request: seen.requests.append(request.url))
        page.on(
            "console",
            lambda msg: seen.console_errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on("pageerror", lambda err: seen.console_errors.append(str(err)))
        started = time.perf_counter()
        page.goto(html.resolve().as_uri(), wait_until="load")
        page.wait_for_selector("html[data-ready='1']")
        page.evaluate(
            "document.dispatchEvent(new Event('mllog-draw-all'))"
        )  # charts below the first screen too
        page.wait_for_selector("html[data-drawn='1']")
        seen.load_seconds = time.perf_counter() - started
        seen.charts = page.evaluate(CHART_STATS)
        seen.screenshot = page.screenshot(full_page=False)
        if keep_page:
            seen.page = page
        else:
            context.close()
        return seen


def non_blank(png: bytes) -> bool:
    """More than a background: several colours, and a fair share of non-background pixels."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    small = image.resize((image.width // 4, image.height // 4))
    colors = small.getcolors(small.width * small.height) or []
    total = small.width * small.height
    background = max(count for count, _ in colors)
    return len(colors) > 20 and total - background > total * 0.02
