"""The page from Jinja2 templates shipped in this package (templates/): one HTML file
with its styles, script and SVG charts inline, so that it opens from disk and asks the
network for nothing. jinja2 is imported here only (the ``analysis`` extra)."""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..safety import visible
from .build import Page, slug
from .charts import fmt, geometry


class MissingDependency(UsageError):
    """jinja2 (or matplotlib for --plots) is not installed."""


def _environment() -> Any:
    try:
        import jinja2
    except ImportError as err:
        raise MissingDependency(
            "the report needs jinja2: pip install 'mllog-check[analysis]'"
        ) from err
    folder = files("mllog_check.html_report").joinpath("templates")
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: folder.joinpath(name).read_text("utf-8")),
        autoescape=True,
        trim_blocks=False,
        undefined=jinja2.StrictUndefined,
        finalize=_visible,
    )
    env.filters["slug"] = slug
    env.filters["breakable"] = _breakable
    env.filters["num"] = lambda v: "" if v is None else fmt(float(v))
    env.globals["geometry"] = geometry
    return env


def _visible(value: Any) -> Any:
    """Every value the templates print: control, invisible and bidirectional characters
    and look-alike letters as visible escapes (safety.visible), before HTML escaping."""
    from markupsafe import Markup

    if isinstance(value, Markup):  # already escaped; the escapes add no markup
        return Markup(visible(str(value)))
    return visible(value) if isinstance(value, str) else value


def _breakable(text: str) -> Any:
    """Escaped text that may wrap after _ . - (long system names in narrow cells)."""
    import re

    from markupsafe import Markup, escape

    return Markup(re.sub(r"([_.\-])", r"\1<wbr>", str(escape(text))))


def _version() -> str:
    try:
        return version("mllog-check")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "dev"


def render(
    page: Page, out: str | Path, title: str | None = None, link_base: str | None = None
) -> str:
    """The report's HTML; links to logs are relative to ``out``'s folder, or below
    ``link_base`` (``links.log_link``: never a scheme taken from a name)."""
    from .links import log_link

    env = _environment()
    out_dir = str(Path(out).resolve().parent)
    base = page.data.base

    def loghref(shown: str) -> str:
        return log_link(shown, base, out_dir, link_base)

    env.filters["loghref"] = loghref
    from ..cost import NOTE
    from .ranked import ranked_rows, with_names

    folder = files("mllog_check.html_report").joinpath("templates")
    return str(
        env.get_template("report.html.j2").render(
            page=page,
            title=title or _title(page),
            version=_version(),
            base_name=os.path.basename(base.rstrip("/")) or base,
            css=_inline(env.get_template("report.css").render()),
            js=_inline(folder.joinpath("report.js").read_text("utf-8")),
            cost_note=NOTE,
            ranked=[] if page.detail else with_names(page.data, ranked_rows(page.data)),
        )
    )


def _inline(text: str) -> Any:
    """Our own stylesheet or script, inlined as is (never text from a log)."""
    from markupsafe import Markup

    if "</" + "script" in text or "</" + "style" in text:
        raise ValueError("an inlined asset must not close its element")
    return Markup(text)


def _title(page: Page) -> str:
    if page.detail:
        return f"mllog-check report: {page.detail}"
    names = [os.path.basename(os.path.abspath(p).rstrip("/")) for p in page.data.paths]
    rounds = ", ".join(page.data.rulesets)
    return f"mllog-check report: {', '.join(names)}" + (f" ({rounds})" if rounds else "")
