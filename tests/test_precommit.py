"""The real pre-commit runs the hook on a temporary repository: one good log, one bad."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT, has_module, needs

pytestmark = pytest.mark.slow

# pre-commit and the hook's mllog-check come from the interpreter running the tests
# (its venv's bin/), never from whatever PATH finds first.
BIN = Path(sys.executable).parent
GOOD = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
BAD = FIXTURES / "check" / "closed_resnet_lars.fail.MLC020.txt"


def _hook() -> dict[str, object]:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return dict(hook)


def test_hook_definition() -> None:
    hook = _hook()
    assert hook["id"] == "mllog-check" and hook["entry"] == "mllog-check check"

    pattern = re.compile(str(hook["files"]))
    assert pattern.search("results/dgx/resnet/result_0.txt")
    assert pattern.search("results/dgx/resnet/result_0.txt.gz")  # check reads gzip too
    assert not pattern.search("results/dgx/resnet/result_0.txt.swp")
    assert not pattern.search("results/dgx/resnet/notes.txt")
    assert not pattern.search("systems/dgx.json")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _pre_commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )


@needs(has_module("pre_commit"), "pre-commit not installed beside the interpreter")
@needs((BIN / "mllog-check").is_file(), f"mllog-check not installed in {BIN}")
def test_pre_commit_passes_good_and_fails_bad(tmp_path: Path) -> None:
    repo = tmp_path / "submission"
    logs = repo / "results" / "dgx" / "resnet"
    logs.mkdir(parents=True)
    hook = _hook()
    # A local hook with the same entry and file pattern as .pre-commit-hooks.yaml: no
    # network needed (a remote hook would build a virtualenv from a git tag).
    hook.update(language="system")
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    # The round comes from the project setting: the hook needs no arguments.
    (repo / "pyproject.toml").write_text('[tool.mllog-check]\nruleset = "1.0.0"\n')
    shutil.copy(GOOD, logs / "result_0.txt")
    (logs / "notes.txt").write_text("not a log: the hook must not look at it\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])  # the hook's mllog-check
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    passed = _pre_commit(repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout

    shutil.copy(BAD, logs / "result_1.txt")
    _git(repo, "add", ".")
    failed = _pre_commit(repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout
    assert "result_1.txt:11:1: error: MLC020 closed resnet (lars): lars_opt_end_learning_rate" in (
        failed.stdout
    )
    assert "result_0.txt" in failed.stdout  # the good log is checked too and passes

    # a gzip log is binary to pre-commit's file typing: the hook must still run on it
    (logs / "result_1.txt").unlink()
    (logs / "result_2.txt.gz").write_bytes(gzip.compress(BAD.read_bytes()))
    _git(repo, "add", "-A")
    failed = _pre_commit(repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "result_2.txt.gz:11:1: error: MLC020" in failed.stdout
