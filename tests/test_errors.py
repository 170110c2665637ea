"""The exception tree: one root, three branches (mllog_check/errors.py)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import mllog_check
from mllog_check import errors
from mllog_check.errors import DataError, MllogCheckError, ReadError, UsageError

BRANCHES = (ReadError, DataError, UsageError)


def _raised() -> set[type[BaseException]]:
    """Every exception class the package defines (each module imported)."""
    found: set[type[BaseException]] = set()
    for info in pkgutil.walk_packages(mllog_check.__path__, "mllog_check."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__.startswith("mllog_check.")
            ):
                found.add(value)
    return found


def test_every_exception_is_under_one_branch_of_the_root() -> None:
    classes = _raised()
    assert len(classes) >= 20
    for cls in classes - {*BRANCHES, MllogCheckError}:
        assert issubclass(cls, MllogCheckError), cls
        under = [b for b in BRANCHES if issubclass(cls, b)]
        assert len(under) == 1, (cls, under)


@pytest.mark.parametrize(
    ("module", "name", "branch"),
    [
        ("mllog_check.inputs", "InputError", ReadError),
        ("mllog_check.rounds", "RoundError", UsageError),
        ("mllog_check.rounds", "RegistryError", DataError),
        ("mllog_check.rules.loader", "RulesetError", DataError),
        ("mllog_check.rules.detect", "RulesUnavailable", UsageError),
        ("mllog_check.cost.prices", "PriceCatalogError", ReadError),
    ],
)
def test_branches_say_whose_the_fault_is(module: str, name: str, branch: type) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, branch) and issubclass(cls, MllogCheckError)


def test_a_branch_keeps_the_bounded_message() -> None:
    assert len(str(errors.UsageError("x" * 100_000))) < errors.MESSAGE_LIMIT + 100
