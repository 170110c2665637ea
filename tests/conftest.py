"""Shared test fixtures: the real-log corpus beside the project, and the oracle."""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Doc generators and data preparation live in scripts/ (not in the wheel): tests import them.
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))


def corpus_dir() -> Path | None:
    configured = os.environ.get("MLLOG_CORPUS")
    path = Path(configured) if configured else ROOT.parent / "shared" / "corpus"
    return path if path.is_dir() else None


def oracle_dir() -> Path | None:
    corpus = corpus_dir()
    if corpus is None:
        return None
    oracle = corpus.parent / "oracle"
    return oracle if oracle.is_dir() else None


def pytest_sessionstart(session: pytest.Session) -> None:
    # Under CI the corpus is part of the contract: missing it must fail loudly,
    # not silently skip every real-log test.
    if os.environ.get("CI") == "true" and corpus_dir() is None:
        raise pytest.UsageError(
            "CI=true but the corpus is missing: set MLLOG_CORPUS or put shared/ beside the project"
        )


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = corpus_dir()
    if path is None:
        pytest.skip("real-log corpus not found (set MLLOG_CORPUS or put ../shared/corpus beside)")
    return path


@pytest.fixture(scope="session")
def oracle() -> Path:
    path = oracle_dir()
    if path is None:
        pytest.skip("oracle not found beside the corpus (../shared/oracle)")
    return path


def read_oracle(oracle: Path, name: str) -> list[dict[str, str]]:
    with open(oracle / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
