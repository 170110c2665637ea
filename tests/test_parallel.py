"""submission/parallel.py: how many workers (never more than the jobs asked, the tasks,
or what the bytes pay for), answers in the tasks' order whatever the workers, a task's
exception reaching the caller; a function run aside in a thread gives its value or its
exception as run at once, and an audit's folder is the same written with the record aside
(--jobs 2) or not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mllog_check.cli.group import cli
from mllog_check.submission import parallel

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@given(
    jobs=st.one_of(st.none(), st.integers(min_value=1, max_value=64)),
    weights=st.lists(st.integers(min_value=0, max_value=1 << 34), max_size=40),
    least=st.integers(min_value=0, max_value=1 << 24),
)
def test_workers_never_exceed_jobs_tasks_or_bytes(
    jobs: int | None, weights: list[int], least: int
) -> None:
    workers = parallel.workers_for(jobs, weights, least)
    assert workers >= 1
    assert workers <= max(1, jobs if jobs is not None else os.cpu_count() or 1)
    assert workers <= max(1, len(weights))
    if least > 0:
        assert workers <= max(1, sum(weights) // least)


def _square(value: int) -> int:
    return value * value


def _refuse(value: int) -> int:
    if value == 3:
        raise ValueError("task 3 refused")
    return value


def test_answers_come_back_in_task_order() -> None:
    tasks = [(n,) for n in range(6)]
    weights = [1, 50, 2, 40, 3, 30]  # heaviest first: submitted out of order
    assert parallel.ordered_map(_square, tasks, weights, 2) == [n * n for n in range(6)]


def test_a_tasks_exception_reaches_the_caller() -> None:
    with pytest.raises(ValueError, match="task 3 refused"):
        parallel.ordered_map(_refuse, [(n,) for n in range(5)], [1] * 5, 2)


def _fails(message: str) -> None:
    raise ValueError(message)


@pytest.mark.parametrize("inline", [True, False])
def test_aside_gives_the_value_or_the_exception(inline: bool) -> None:
    assert parallel.Aside(_square, (7,), inline=inline).result() == 49
    with pytest.raises(ValueError, match="refused aside"):
        parallel.Aside(_fails, ("refused aside",), inline=inline).result()


def test_aside_runs_beside_the_caller() -> None:
    """The caller goes on while the function runs: it can hand the function what it
    waits for."""
    import threading

    handed = threading.Event()
    aside = parallel.Aside(handed.wait, (60,), inline=False)
    handed.set()
    assert aside.result() is True


def test_an_audit_folder_is_the_same_with_the_record_written_aside(tmp_path: Path) -> None:
    runner = CliRunner()
    folders = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        args = ["audit", str(FIXTURES / "audit" / "clean"), "--ruleset", "1.0.0"]
        result = runner.invoke(cli, [*args, "--no-cache", "-j", jobs, "--out", str(out)])
        assert result.exit_code in (0, 1), result.output
        folders[jobs] = {f.name: f.read_bytes() for f in sorted(out.iterdir())}
    assert "record.json.gz" in folders["2"]
    assert folders["1"] == folders["2"]


@pytest.mark.corpus
def test_a_table_that_cannot_be_written_leaves_no_truncated_record(
    tmp_path: Path, corpus: Path
) -> None:
    """The tables fail at once (a folder where results.csv goes) while the thread writes
    the record of a corpus round: exit 2, one line, and the record is whole, not cut
    short by the process's exit."""
    from mllog_check.html_report.record import read_record

    out = tmp_path / "out"
    (out / "results.csv").mkdir(parents=True)
    command = "from mllog_check.cli import main; main()"
    args = ["audit", str(corpus / "v1.0"), "--no-cache", "-j", "2", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", command, *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr
    assert "results.csv" in done.stderr and "Traceback" not in done.stderr
    assert read_record(out).runs  # whole: gzip complete, JSON valid, every curve there
