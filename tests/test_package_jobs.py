"""package's worker processes (submission/parallel.py, docs/benchmarks.md "Both cores"):
an org's result sets checked in several processes give the very report one process
gives, on corpus orgs of several result sets, and audit's workers make no pool of their
own (the pool itself: tests/test_parallel.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mllog_check.cli.group import cli
from mllog_check.submission import parallel
from mllog_check.submission.audit import run_audit
from mllog_check.submission.package import check_package


def _sets(org: Path) -> int:
    """The org's folders holding result logs (its result sets, as the layout finds them)."""
    return len({log.parent for log in (org / "results").rglob("result_*.txt")})


def _several_set_orgs(corpus: Path, count: int) -> list[Path]:
    """The ``count`` smallest corpus orgs with three result sets or more, one per round."""
    found: dict[str, tuple[int, Path]] = {}
    for results in sorted(corpus.glob("*/*/results")):
        org = results.parent
        if _sets(org) < 3:
            continue
        size = sum(f.stat().st_size for f in results.rglob("result_*.txt"))
        round_name = org.parent.name
        if round_name not in found or size < found[round_name][0]:
            found[round_name] = (size, org)
    orgs = sorted(found.values())[:count]
    assert orgs, "no corpus org with three result sets"
    return [org for _, org in orgs]


@pytest.fixture
def workers_used(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every pool size package asked for, with the size bound lowered so that small corpus
    orgs take the worker path."""
    used: list[int] = []
    real = parallel.ordered_map

    def spy(function: Any, tasks: Any, weights: Any, workers: int) -> Any:
        used.append(workers)
        return real(function, tasks, weights, workers)

    monkeypatch.setattr(parallel, "MIN_BYTES_PER_WORKER", 1)
    monkeypatch.setattr(parallel, "ordered_map", spy)
    return used


@pytest.mark.corpus
def test_reports_are_the_same_whatever_the_workers(corpus: Path, workers_used: list[int]) -> None:
    for org in _several_set_orgs(corpus, 4):
        one = check_package(org, audit=True, jobs=1)
        two = check_package(org, audit=True, jobs=2)
        assert workers_used[-2:] == [1, 2], org
        assert one.runs and two == one, org  # every field: problems, rows, curves


@pytest.mark.corpus
def test_cli_output_is_the_same_whatever_jobs(corpus: Path, workers_used: list[int]) -> None:
    org = _several_set_orgs(corpus, 1)[0]
    runner = CliRunner()
    outputs = {}
    for jobs in ("1", "2"):
        args = ["package", str(org), "--format", "json", "--no-cache", "-j", jobs]
        result = runner.invoke(cli, args)
        assert result.exit_code in (0, 1), result.output
        outputs[jobs] = result.output
    assert outputs["1"] == outputs["2"]
    assert max(workers_used) == 2


@pytest.mark.corpus
def test_audit_workers_make_no_pool_of_their_own(corpus: Path, workers_used: list[int]) -> None:
    """An audit worker checks its org in its own process: package's pool is never nested
    in the audit's, whatever the size."""
    org = _several_set_orgs(corpus, 1)[0]
    result = run_audit(org.parent, None, jobs=1)
    assert result.runs and workers_used and set(workers_used) == {1}


def _killed(*_args: Any) -> None:
    os._exit(9)  # as the kernel's out-of-memory killer would leave it: no answer


@pytest.mark.corpus
def test_a_killed_worker_is_one_line_and_no_verdict(
    corpus: Path, workers_used: list[int], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from mllog_check.cli import main
    from mllog_check.submission import package as package_module

    org = _several_set_orgs(corpus, 1)[0]
    monkeypatch.setattr(package_module, "_set_part", _killed)
    with pytest.raises(SystemExit) as stopped:
        main(["package", str(org), "-j", "2", "--no-cache"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "worker process stopped" in err and "Traceback" not in err
