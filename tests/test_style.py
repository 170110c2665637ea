"""The test command also runs the linters and the type checker (ruff, mypy)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

PATHS = ["mllog_check", "tests", "benchmarks", "scripts", "grammars", "schemas", "fixtures"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (test extras)")
def test_ruff_lint() -> None:
    result = _run("ruff", "check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (test extras)")
def test_ruff_format() -> None:
    result = _run("ruff", "format", "--check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    pytest.importorskip("mypy")
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr
