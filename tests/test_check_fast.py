"""The hook's fast reading of ``check`` options (cli/check_options.py) equals click's.

Every argument list is read both ways: where the fast reading accepts it, the parameters
are click's; where it declines, click reads it (and gives its own message). Then whole
runs through ``main`` (fast path) and through the click group print the same.
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import cli
from mllog_check.cli.check import check
from mllog_check.cli.check_options import read_fast

GOOD = str(FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt")
BAD = str(FIXTURES / "check" / "closed_resnet_lars.fail.MLC020.txt")

# Pieces of argument lists: known options in every spelling, odd ones, paths.
PIECES = [
    ["--ruleset", "1.0.0"],
    ["--ruleset=v1.0"],
    ["--ruleset="],
    ["--ruleset"],
    ["--ruleset", "--strict"],
    ["--format", "json"],
    ["--format=sarif"],
    ["--format", "yaml"],
    ["--include", "*.log"],
    ["--include=train*"],
    ["-v"],
    ["--verbose"],
    ["--strict"],
    ["--strict=1"],
    ["--follow"],
    ["--until", "run_stop"],
    ["--until=eof"],
    ["-vv"],
    ["-h"],
    ["--help"],
    ["--no-such-option"],
    ["--"],
    ["-"],
    ["a.txt"],
    ["-x.txt"],
]


def _click_params(args: list[str]) -> dict[str, object] | None:
    try:
        ctx = check.make_context("check", list(args), resilient_parsing=False)
    except Exception:  # click's usage errors (and --help's exit)
        return None
    return dict(ctx.params)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_fast_reading_equals_click(size: int) -> None:
    accepted = 0
    for combo in itertools.product(PIECES, repeat=size):
        args = [a for piece in combo for a in piece]
        fast = read_fast(args)
        if fast is None:
            continue
        accepted += 1
        assert fast == _click_params(args), args
    assert accepted > 0


def test_fast_reading_declines_what_it_does_not_know() -> None:
    for args in (
        [],
        ["--help"],
        ["-h", GOOD],
        ["--format", "yaml", GOOD],
        ["--ruleset"],
        ["--strict", "--strict", GOOD],
        ["--ruleset", "1.0.0", "--ruleset", "2.0.0", GOOD],
        ["-vv", GOOD],
    ):
        assert read_fast(args) is None, args


def _main(args: list[str]) -> tuple[int, str, str]:
    code = f"from mllog_check.cli import main; main({args!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--ruleset", "1.0.0", GOOD],
        ["--ruleset=1.0.0", "-v", GOOD, BAD],
        ["--ruleset", "1.0.0", "--format", "json", "--strict", BAD],
        ["--ruleset", "1.0.0", "--format=github", BAD],
        ["--ruleset", "0.1.0", GOOD],
        ["no/such/file.txt"],
        ["--format", "yaml", GOOD],
    ],
)
def test_fast_path_prints_what_click_prints(args: list[str]) -> None:
    code, out, err = _main(["check", *args])
    result = CliRunner().invoke(cli, ["check", *args], prog_name="mllog-check")
    assert code == result.exit_code
    assert out == result.stdout
    assert err == result.stderr
