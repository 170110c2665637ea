"""Write docs/codes.md (every rule code with its examples) to stdout."""

from __future__ import annotations

import sys

from .catalog import render_markdown

if __name__ == "__main__":  # pragma: no cover - a documentation generator
    sys.stdout.write(render_markdown())
