"""The composite GitHub Action (action.yml): its steps' commands run here as a runner runs
them (bash, the inputs' defaults as environment variables, GITHUB_ACTION_PATH and
GITHUB_OUTPUT), with the package installed from a wheel of this checkout into a fresh
venv and pip kept off the network. Steps that ``uses:`` another action are GitHub's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import FIXTURES, ROOT
from installs import build_wheel, fresh_venv

pytestmark = pytest.mark.slow

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def _value(expression: str, inputs: dict[str, str]) -> str:
    kind, _, name = expression.partition(".")
    assert kind == "inputs" and name in ACTION["inputs"], expression
    return inputs[name]


def _run_steps(inputs: dict[str, str], cwd: Path, path: str) -> tuple[int, str, Path]:
    """Each ``run`` step in order, as a composite action runs them; the last exit code,
    the output and the GITHUB_OUTPUT file."""
    output = cwd / "github_output"
    output.touch()
    env = {**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
    env.update(GITHUB_ACTION_PATH=str(ROOT), GITHUB_OUTPUT=str(output), PIP_NO_INDEX="1")
    env.pop("VIRTUAL_ENV", None)
    said, code = "", 0
    for step in ACTION["runs"]["steps"]:
        if "uses" in step:
            continue
        step_env = {k: EXPRESSION.sub(lambda m: _value(m[1], inputs), str(v))
                    for k, v in (step.get("env") or {}).items()}  # fmt: skip
        script = cwd.parent / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        # as the runner runs `shell: bash` (GitHub's docs, "jobs.<job_id>.steps[*].shell")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
            env={**env, **step_env}, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        said += done.stdout + done.stderr
        code = done.returncode
        if code:
            break
    return code, said, output


def test_action_is_composite_and_its_scripts_take_inputs_from_the_environment() -> None:
    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), step
            continue
        assert step["shell"] == "bash", step
        # script injection: an input is an environment variable, never ${{ }} in a script
        assert "${{" not in step["run"], step["name"]
        for value in (step.get("env") or {}).values():
            for expression in EXPRESSION.findall(str(value)):
                assert _value(expression, {k: "" for k in ACTION["inputs"]}) == ""
    assert all("default" in spec and spec.get("description") for spec in ACTION["inputs"].values())


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh venv with pip (the runner's Python) that sees the test run's dependencies,
    and a wheel of this checkout for the install step."""
    wheel = build_wheel(ROOT, tmp_path_factory.mktemp("dist"))
    env = tmp_path_factory.mktemp("venv") / "env"
    python = fresh_venv(env)
    subprocess.run([str(python), "-m", "ensurepip"], check=True, capture_output=True)
    return python.parent, wheel


def _workspace(tmp_path: Path) -> Path:
    """A submission repository: a clean org and one missing a result file, checked first
    (the gate goes on after a failing org)."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", ws / "Acme")
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", ws / "Aardvark")
    removed = sorted((ws / "Aardvark" / "results").glob("*/*/result_*.txt"))[-1]
    removed.unlink()
    return ws


def test_action_installs_and_gates_each_org_once(
    venv_bin: tuple[Path, Path], tmp_path: Path
) -> None:
    path, wheel = venv_bin
    ws = _workspace(tmp_path)
    inputs: dict[str, Any] = {k: str(spec["default"]) for k, spec in ACTION["inputs"].items()}
    inputs.update(package=str(wheel), ruleset="1.0.0")
    code, said, output = _run_steps(inputs, ws, str(path))
    assert code == 1, said  # the broken org fails the gate
    assert (path / "mllog-check").exists(), said  # installed by the action's own step
    # one verdict per org: a notice for the clean one, annotations for the broken one
    assert said.count("::notice title=mllog-check package::PASS Acme (1.0.0)") == 1, said
    assert re.search(r"^::error file=Aardvark/[^\n]*MLP003", said, flags=re.M), said
    assert "PASS Aardvark" not in said
    junit = ws / inputs["junit-dir"]
    assert sorted(p.name for p in junit.iterdir()) == ["Aardvark.xml", "Acme.xml"]
    assert ET.parse(junit / "Acme.xml").getroot().get("failures") == "0"
    assert ET.parse(junit / "Aardvark.xml").getroot().get("failures") != "0"
    assert f"junit-dir={inputs['junit-dir']}" in output.read_text(encoding="utf-8")


def test_action_on_one_org_and_on_nothing(venv_bin: tuple[Path, Path], tmp_path: Path) -> None:
    path, wheel = venv_bin
    ws = _workspace(tmp_path)
    inputs = {k: str(spec["default"]) for k, spec in ACTION["inputs"].items()}
    inputs.update(package=str(wheel), ruleset="1.0.0", path="Acme", strict="true")
    code, said, _ = _run_steps(inputs, ws, str(path))
    assert code == 0 and "PASS Acme" in said and "Aardvark" not in said, said
    (ws / "empty").mkdir()
    code, said, _ = _run_steps({**inputs, "path": "empty"}, ws, str(path))
    assert code == 2 and "::error title=mllog-check::no org folder" in said, said
