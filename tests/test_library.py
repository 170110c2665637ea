"""The library's surface: one exception root, and one call that checks paths (the
``check`` command only parses options and prints)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from conftest import FIXTURES

import mllog_check
from mllog_check import MllogCheckError, check_paths
from mllog_check.rounds import RoundError

GOOD = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
BAD = FIXTURES / "check" / "closed_resnet_lars.fail.MLC020.txt"


def _modules() -> list[str]:
    names = ["mllog_check"]
    for info in pkgutil.walk_packages(mllog_check.__path__, "mllog_check."):
        names.append(info.name)
    return names


def test_every_exception_of_the_library_has_one_root() -> None:
    found = []
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra (e.g. the report's jinja2) not installed
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, BaseException):
                found.append(cls)
                assert issubclass(cls, MllogCheckError), f"{name}.{cls.__name__}"
    assert len(found) >= 12


def test_check_paths_returns_verdicts_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = check_paths([str(GOOD), str(BAD)], "v1.0")
    assert [v.passed for v in run.verdicts] == [True, False] and run.exit_code == 1
    assert all(v.ruleset == "training-1.0.0" and v.ruleset_source == "flag" for v in run.verdicts)
    assert run.lines() == [] and len(run.lines(verbose=True)) == 2
    assert capsys.readouterr() == ("", "")


def test_check_paths_raises_one_root_for_usage_errors(tmp_path: Path) -> None:
    empty = tmp_path / "result_0.txt"
    empty.write_text("no marker\n")
    # Not a log: MLC001 alone and exit 2 (no round is needed to say so).
    run = check_paths([str(empty)])
    assert run.exit_code == 2 and [p.rule for p in run.verdicts[0].problems] == [
        "MLC001",
        "MLS011",
    ]
    with pytest.raises(RoundError):
        check_paths([str(GOOD)], "7.7")
    assert check_paths([str(tmp_path / "missing.txt")], "1.0.0").exit_code == 2


def test_no_rule_code_literal_outside_the_registries() -> None:
    """Codes are written once, where they are registered; everything else names the rule."""
    import re

    registries = {
        "syntax_codes.py",
        "rules/codes.py",
        "results/codes.py",
        "submission/codes.py",
        "power/codes.py",
    }
    literal = re.compile(r"[\"']ML[SCRPAE][0-9]{3}[\"']")
    package = Path(mllog_check.__file__).parent
    found = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if str(path.relative_to(package)) not in registries
        and literal.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_a_rule_makes_its_own_problem() -> None:
    from mllog_check.problems import Severity
    from mllog_check.syntax_codes import INPUT_ERROR

    problem = INPUT_ERROR.problem("x.txt", "gone", 3, severity=Severity.WARNING)
    assert (problem.rule, problem.name, problem.line, problem.severity) == (
        INPUT_ERROR.code,
        INPUT_ERROR.name,
        3,
        Severity.WARNING,
    )
