"""Live checking of a growing log (``mllog-check check --follow``; docs/follow.md).

``LiveCheck`` (live.py) is the library API: fed bytes, lines or records, it returns the
problems each piece made certain and, at ``finish()``, the verdict ``check`` gives on
the whole log. ``tail.py`` reads a file as it grows (truncation, rotation) or a pipe;
``progress.py`` keeps what a status line shows (epoch, samples, last evaluation against
the target, the RCP comparison).
"""

from __future__ import annotations

from .live import LiveCheck

__all__ = ["LiveCheck"]
