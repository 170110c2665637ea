"""Shared test fixtures: the real-log corpus beside the project, and the oracle."""

from __future__ import annotations

import atexit
import csv
import importlib.util
import os
import random
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mllog_check.rounds import Round

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Doc generators and data preparation live in scripts/ (not in the wheel): tests import them.
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))


# The result cache of package and audit (docs/audit.md, "Cache") goes to a folder of this
# session, never the user's: a test and every command it runs see no one else's entries.
_CACHE = tempfile.mkdtemp(prefix="mllog-check-test-cache-")
os.environ["MLLOG_CHECK_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


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


# What the tests run beside the interpreter running them (pyproject.toml's test extras).
CI_MODULES = ("mlperf_logging", "ruff", "pre_commit", "mypy", "hypothesis")


def _in_ci() -> bool:
    return os.environ.get("CI") == "true"


def require(available: bool, reason: str) -> None:
    """Skip a test whose need is unmet; under CI=true fail instead: nothing a test needs
    may turn into a skip there."""
    if available:
        return
    if _in_ci():
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def needs(available: bool, reason: str) -> pytest.MarkDecorator:
    """The mark form of require(): skipped locally, run (and failing) under CI=true."""
    return pytest.mark.skipif(not available and not _in_ci(), reason=reason)


def has_module(name: str) -> bool:
    """A tool the tests run as ``sys.executable -m name``: the interpreter running the
    tests, never whatever PATH finds first."""
    return importlib.util.find_spec(name) is not None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Hypothesis: the same examples on every CI run (a red build is reproducible and never
    # flaky); random locally, with one seed per session that the header prints so a local
    # failure can be replayed (--hypothesis-seed=N). Runs before the Hypothesis plugin reads
    # the seed option; pytest-xdist hands the controller's options to its workers.
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    if _in_ci():
        settings.load_profile("ci")
    elif config.getoption("hypothesis_seed", None) is None:
        worker = getattr(config, "workerinput", {})
        seed = worker.get("hypothesis_seed") or str(random.SystemRandom().getrandbits(32))
        config.option.hypothesis_seed = seed


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    # pytest-xdist: every worker draws the controller's seed, the one the header printed
    node.workerinput["hypothesis_seed"] = node.config.getoption("hypothesis_seed", None)


def pytest_report_header(config: pytest.Config) -> str:
    if _in_ci():
        return "hypothesis: derandomized (CI=true, profile 'ci')"
    seed = config.getoption("hypothesis_seed", None)
    return f"hypothesis seed: {seed} (replay with --hypothesis-seed={seed})"


def pytest_sessionstart(session: pytest.Session) -> None:
    # Under CI the corpus is part of the contract: missing it must fail loudly,
    # not silently skip every real-log test.
    if _in_ci() and corpus_dir() is None:
        raise pytest.UsageError(
            "CI=true but the corpus is missing: set MLLOG_CORPUS or put shared/ beside the project"
        )
    # Tests parametrized by oracle rows would vanish from collection without it.
    if _in_ci() and oracle_dir() is None:
        raise pytest.UsageError("CI=true but the oracle is missing beside the corpus (oracle/)")
    # The differential tests' oracle and the linters the tests run, from this interpreter.
    absent = [name for name in CI_MODULES if _in_ci() and not has_module(name)]
    if absent:
        raise pytest.UsageError(f"CI=true but {', '.join(absent)} not installed (test extras)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # `-m corpus` / `-m "not corpus"` select real-log tests: each test that asks for the
    # corpus or the oracle carries the marker itself (never added here, so a reader of the
    # test sees it); one that does not stops the run.
    unmarked = sorted(
        item.nodeid
        for item in items
        if {"corpus", "oracle"} & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("corpus") is None
    )
    if unmarked:
        raise pytest.UsageError(
            "tests using the corpus without @pytest.mark.corpus: " + ", ".join(unmarked)
        )


@pytest.fixture(scope="module")
def browser() -> Any:
    """Headless Chromium for the report tests (tests/report_browser.py): one per module."""
    from report_browser import Browser, require_browser

    instance = Browser(require_browser())
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = corpus_dir()
    require(path is not None, "real-log corpus not found (MLLOG_CORPUS or ../shared/corpus)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def oracle() -> Path:
    path = oracle_dir()
    require(path is not None, "oracle not found beside the corpus (../shared/oracle)")
    assert path is not None
    return path


def read_oracle(oracle: Path, name: str) -> list[dict[str, str]]:
    with open(oracle / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# Usages whose published data sits beside the corpus but which this build does not read
# yet (docs/rounds.md); empty since the registry reads HPC (corpus/hpc-v*,
# reference/rcp/hpc_*, reference/official-rules/hpc_*: docs/hpc.md).
# Walks of the shared data set such folders aside by name and say so; any other name the
# registry does not know fails the walk. tests/test_registry.py fails once the registry
# knows a listed usage, so the list is dropped when the usage is supported.
PENDING_USAGES: tuple[str, ...] = ()


class PendingUsage(UserWarning):
    """Shared data of a usage this build does not read yet, set aside by a test."""


def usage_of(name: str) -> str:
    """The usage a shared folder name is spelled for: 'hpc' for hpc-v1.0 or hpc_1.0.0."""
    head = re.split(r"[-_]", name.strip().lower(), maxsplit=1)[0]
    return head if head in PENDING_USAGES else "training"


def pending_folders(folder: Path) -> list[Path]:
    """The subfolders of a shared data folder that belong to a pending usage."""
    return [p for p in sorted(folder.iterdir()) if p.is_dir() and usage_of(p.name) != "training"]


def shared_rounds(folder: Path, *, at_least: int) -> list[tuple[Path, Round]]:
    """The subfolders of a shared data folder (corpus/, reference/rcp/, ...) with the round
    each names. Folders of a pending usage the registry does not know are set aside with a
    PendingUsage warning; a name that is neither fails, as does finding fewer than
    ``at_least`` rounds (a walk that compared nothing must not pass)."""
    from mllog_check.rounds import RoundError, parse_round

    known: list[tuple[Path, Round]] = []
    pending: list[str] = []
    unknown: list[str] = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        try:
            known.append((sub, parse_round(sub.name)))
        except RoundError:
            (unknown if usage_of(sub.name) == "training" else pending).append(sub.name)
    assert not unknown, (
        f"{folder}: {unknown} name no round of the registry and no pending usage "
        f"{PENDING_USAGES} (tests/conftest.py)"
    )
    assert len(known) >= at_least, f"{folder}: {len(known)} rounds found, expected >= {at_least}"
    if pending:
        warnings.warn(
            PendingUsage(f"{folder}: set aside (usage not supported yet): {', '.join(pending)}"),
            stacklevel=2,
        )
    return known
