"""The test command also runs the linters and the type checker (ruff, mypy)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, has_module, needs, require

PATHS = ["mllog_check", "tests", "benchmarks", "scripts", "grammars", "schemas", "fixtures"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


# The linters of the interpreter running the tests, never whatever PATH finds first.
RUFF = needs(has_module("ruff"), "ruff not installed beside the interpreter (test extras)")


@RUFF
def test_ruff_lint() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


@RUFF
def test_ruff_format() -> None:
    result = _run(sys.executable, "-m", "ruff", "format", "--check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    require(has_module("mypy"), "mypy not installed beside the interpreter (test extras)")
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_pointers_go_to_the_projects_docs_or_public_urls() -> None:
    """Comments cite docs/ or public sources; not issue numbers of a tracker a reader of the
    repository cannot see, nor notes outside it (docs/design.md)."""
    import re

    pattern = re.compile(r"\b[Ii]ssue \d+|\bNOTES\.md\b")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("mllog_check", "tests", "scripts", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
