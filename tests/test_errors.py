"""The exception tree: one root, three branches (mllog_check/errors.py)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


@given(
    size=st.integers(min_value=0, max_value=20_000),
    limit=st.sampled_from([errors.MESSAGE_LIMIT, 240, 4_001]),
)
def test_a_cut_is_bounded_honest_and_final(size: int, limit: int) -> None:
    """At most ``limit`` long, its start and end the text's, the count it states the
    characters left out; cut again (a worker's answer, the result cache) it stays."""
    text = "".join(chr(0x61 + i % 26) for i in range(size))
    cut = errors.cut_message(text, limit)
    assert len(cut) <= limit
    assert errors.cut_message(cut, limit) == cut
    if size <= limit:
        assert cut == text
        return
    head, rest = cut.split("…[", 1)
    count, tail = rest.split(" characters cut]…", 1)
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + int(count.replace(",", "")) + len(tail) == size


def test_a_long_problem_survives_pickling() -> None:
    """The package's workers and the result cache hand problems back pickled: a message
    cut once is the same message read back."""
    import pickle

    from mllog_check.problems import Problem, Severity

    problem = Problem("log.txt", 3, 1, "MLC041", Severity.WARNING, "tensor, " * 2_000)
    assert pickle.loads(pickle.dumps(problem)) == problem
