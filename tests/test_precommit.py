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


def _hook(name: str = "mllog-check") -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = [h for h in hooks if h["id"] == name]
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


def _pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    args = args or ("--all-files",)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args, "--color", "never"],
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


def test_package_hook_definition() -> None:
    hook = _hook("mllog-check-package")
    assert hook["entry"] == "mllog-check package --staged"
    # Deleted files never reach a hook's file names: it reads git's staged paths itself.
    assert hook["pass_filenames"] is False and hook["always_run"] is True


MI300X = "MI300X_EPYC_9575F_pytorch_llama2_70b"


def _readme_config() -> str:
    """The .pre-commit-config.yaml of the README's "Hooks and CI" section; its hooks
    say what .pre-commit-hooks.yaml says (run from PATH: language system)."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Hooks and CI") :]
    block = section[section.index("```yaml\n") + len("```yaml\n") :]
    config = block[: block.index("```")]
    for hook in yaml.safe_load(config)["repos"][0]["hooks"]:
        shipped = _hook(hook["id"])
        same = [k for k in hook if k not in ("language", "require_serial")]
        assert {k: hook[k] for k in same} == {k: shipped[k] for k in same}
    return config


@pytest.mark.corpus
@needs(has_module("pre_commit"), "pre-commit not installed beside the interpreter")
@needs((BIN / "mllog-check").is_file(), f"mllog-check not installed in {BIN}")
def test_package_hook_sees_a_misspelt_key_and_a_deleted_run(corpus: Path, tmp_path: Path) -> None:
    repo = tmp_path / "submission"
    shutil.copytree(corpus / "v5.1" / "AMD", repo / "AMD")
    (repo / ".pre-commit-config.yaml").write_text(_readme_config())  # as written
    (repo / "pyproject.toml").write_text('[tool.mllog-check]\nruleset = "5.1.0"\n')
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    clean = _pre_commit(repo, env)  # the staged files: the whole org
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "PASS AMD (5.1.0): 0 errors, 0 warnings" in clean.stdout or "Passed" in clean.stdout
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "AMD")

    desc = repo / "AMD" / "systems" / f"{MI300X}.json"
    desc.write_text(desc.read_text().replace('"accelerator_model_name"', '"acelerator_model_name"'))
    _git(repo, "add", "AMD/systems")
    _git(repo, "rm", "-q", f"AMD/results/{MI300X}/llama2_70b_lora/result_3.txt")
    failed = _pre_commit(repo, env)  # staged: one description, one deletion
    out = failed.stdout
    assert failed.returncode == 1, out + failed.stderr
    # The log hook has no log to fail (a description, a deletion); the package hook sees
    # both faults.
    assert re.search(r"mllog-check \(MLPerf Training compliance\)\.+(Passed|\(no files)", out)
    assert re.search(r"mllog-check package \(the orgs the commit touches\)\.+Failed", out)
    assert re.search(rf"{MI300X}\.json:\d+:\d+: error: MLP011 .*'accelerator_model_name'", out)
    assert "error: MLP003 9 result files for llama2_70b_lora" in out
    assert "FAIL AMD (5.1.0): 2 errors" in out


@pytest.mark.parametrize("recipe", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_recipes_call_commands_and_options_that_exist(recipe: str) -> None:
    """docs/ci/: valid YAML, every mllog-check call a registered command given options
    it has (its --help lists them)."""
    from click.testing import CliRunner

    from mllog_check.cli import COMMANDS
    from mllog_check.cli.group import cli

    text = (ROOT / "docs" / "ci" / recipe).read_text()
    assert yaml.safe_load(text)
    if re.search(r"uses: <org>/mllog-check@", text):  # the gate is the action's
        text += (ROOT / "action.yml").read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    calls = re.findall(r"mllog-check (\w+)((?: [^\n|;]*)?)", code)
    assert {"package", "summarize"} <= {command for command, _ in calls}
    # each org is checked once: one package call per loop, its JUnit from the same run
    assert len([c for c, _ in calls if c == "package"]) == 1, recipe
    assert "--junit-dir" in text and "--format junit" not in text, recipe
    for command, rest in calls:
        assert command in COMMANDS
        shown = CliRunner().invoke(cli, [command, "--help"]).output
        for option in re.findall(r"(--[a-z-]+)", rest):
            assert option in shown, f"{command} {option}"
