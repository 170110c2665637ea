"""Every command takes its round the same way (one function, one --ruleset help text),
and the project setting `[tool.mllog-check]` in pyproject.toml is read safely: files
that are not ours never crash a command, `ruleset = "auto"` is the default said aloud,
and what is not read (an unknown key, a misspelled table) is said, with a did-you-mean
(docs/rounds.md, "Choosing the round")."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import RULESET_HELP, cli
from mllog_check.rounds import find_setting, read_setting

LOG = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
COMMANDS = ("check", "score", "cost", "package", "audit", "report", "hparams")


def _words(text: str) -> str:
    """Text without the line breaks help formatting puts in (also after a hyphen)."""
    return "".join(text.split())


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_describes_ruleset_with_the_one_help_text(command: str) -> None:
    done = CliRunner().invoke(cli, [command, "--help"])
    assert done.exit_code == 0
    assert _words(RULESET_HELP) in _words(done.output), command


def _project(tmp_path: Path, toml: str) -> Path:
    """A results folder outside any round folder, its pyproject.toml above it."""
    (tmp_path / "pyproject.toml").write_text(toml)
    folder = tmp_path / "Org" / "results" / "sys" / "resnet"
    folder.mkdir(parents=True)
    shutil.copy(LOG, folder / "result_0.txt")
    return folder / "result_0.txt"


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    code = "from mllog_check.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True
    )


def test_report_reads_the_project_setting(tmp_path: Path) -> None:
    """report ignored [tool.mllog-check] ruleset; now it takes it as every command does
    (an unknown round there is a usage error naming the file)."""
    _project(tmp_path, '[tool.mllog-check]\nruleset = "7.7"\n')
    done = _run(tmp_path, "report", "Org/results", "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2
    assert "pyproject.toml: [tool.mllog-check] ruleset: unknown ruleset '7.7'" in done.stderr


@pytest.mark.parametrize(
    "toml",
    ['tool = "x"\n', "[[tool]]\nname = 'x'\n", "[tool]\nmllog-check = 3\n"],
)
def test_a_tool_key_that_is_not_a_table_never_crashes(tmp_path: Path, toml: str) -> None:
    log = _project(tmp_path, toml)
    done = _run(tmp_path, "check", "-v", str(log))
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    assert "(from date:" in done.stderr  # no setting: the log's content and date


def test_ruleset_auto_in_the_project_is_the_default(tmp_path: Path) -> None:
    log = _project(tmp_path, '[tool.mllog-check]\nruleset = "auto"\n')
    assert find_setting(tmp_path) is None
    done = _run(tmp_path, "check", "-v", str(log))
    assert done.returncode == 0, done.stderr
    assert "(from date:" in done.stderr


def test_unknown_keys_and_a_misspelled_table_are_said_with_a_guess(tmp_path: Path) -> None:
    log = _project(tmp_path, '[tool.mllog-check]\nruleset = "1.0.0"\nrulset = "2.0"\n')
    setting, notes = read_setting(tmp_path)
    assert setting is not None and setting.ruleset == "1.0.0"
    assert notes == [
        f"{tmp_path / 'pyproject.toml'}: [tool.mllog-check] 'rulset' is not a setting "
        '(did you mean "ruleset"?): ignored'
    ]
    done = _run(tmp_path, "check", str(log))
    assert done.returncode == 0 and "warning:" in done.stderr and "rulset" in done.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.mllog_check]\nruleset = "2.0"\n')
    setting, notes = read_setting(tmp_path)
    assert setting is None
    assert notes == [
        f"{tmp_path / 'pyproject.toml'}: [tool.mllog_check] is not read "
        "(did you mean [tool.mllog-check]?)"
    ]
    done = _run(tmp_path, "score", "Org", "--format", "csv")
    assert "did you mean [tool.mllog-check]?" in done.stderr
