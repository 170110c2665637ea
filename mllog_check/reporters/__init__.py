"""Output formats for checked files: a registry of reporters, each writing to a stream.

A reporter is ``write(files, out)``: ``files`` are verdict-like objects (``path``,
``passed``, ``division``, ``benchmark``, ``ruleset``, ``problems``; a
``mllog_check.rules.LogVerdict`` is one), ``out`` a text stream. Formats are
registered by name as "module:function" and imported only when used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TextIO

from ..problems import Problem


class FileResult(Protocol):
    path: str
    passed: bool
    division: str | None
    benchmark: str | None
    ruleset: str
    problems: list[Problem]


Reporter = Callable[[Sequence[Any], TextIO], None]

# name -> "module:function"; add a format with one line here.
REPORTERS: dict[str, str] = {
    "text": "mllog_check.reporters.text:write_text",
    "json": "mllog_check.reporters.machine:write_json",
    "junit": "mllog_check.reporters.machine:write_junit",
    "sarif": "mllog_check.reporters.machine:write_sarif",
    "github": "mllog_check.reporters.text:write_github",
}


def names() -> list[str]:
    return sorted(REPORTERS)


def get(name: str) -> Reporter:
    """The reporter registered under ``name`` (KeyError for an unknown format)."""
    module, _, attr = REPORTERS[name].partition(":")
    reporter: Reporter = getattr(importlib.import_module(module), attr)
    return reporter


def ordered(files: Sequence[Any]) -> list[Any]:
    """Files by path, so that every format is deterministic whatever the input order."""
    return sorted(files, key=lambda f: f.path)
