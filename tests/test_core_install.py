"""The core install (no analysis extra) runs parse, check, score and package.

The heavy packages are blocked from import in a subprocess, as if the core install
had left them out; the commands that need them name the extra and exit 2.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

HEAVY = ("pandas", "pyarrow", "scipy", "matplotlib", "rich", "jinja2", "openpyxl")
BLOCK = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {HEAVY!r}:
            raise ImportError(f"blocked: {{name}} (core install)")
        return None
sys.meta_path.insert(0, Block())
from mllog_check.cli import main
main(sys.argv[1:])
"""


def _core(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", BLOCK, *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def test_core_dependencies_leave_the_heavy_packages_to_the_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    assert not [name for name in HEAVY if name in core]
    analysis = " ".join(project["optional-dependencies"]["analysis"])
    assert all(name in analysis for name in HEAVY if name != "scipy")


def test_parse_check_score_package_run_without_the_extra(tmp_path: Path) -> None:
    log = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
    assert _core("parse", "-q", str(log)).returncode == 0
    assert _core("check", "--ruleset", "1.0.0", str(log)).returncode == 0
    org = FIXTURES / "package" / "clean" / "Acme"
    done = _core("package", str(org), "--ruleset", "1.0.0")
    assert done.returncode == 0 and "PASS Acme (1.0.0)" in done.stdout, done.stderr
    for fmt in ("table", "csv", "json"):
        done = _core("score", str(FIXTURES / "score" / "rcp_pass"), "--format", fmt)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        assert done.stdout.strip(), fmt
    prices = str(FIXTURES / "prices" / "sample.csv")
    done = _core("cost", str(FIXTURES / "score" / "rcp_pass"), "--prices", prices)
    assert done.returncode in (0, 1) and "Prices:" in done.stdout, done.stderr  # no rich
    out = tmp_path / "t.csv"
    done = _core("summarize", str(org), "--csv", str(out))
    assert done.returncode in (0, 1) and out.exists(), done.stderr


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["score", "--format", "parquet", "-o", "x.parquet"], "Parquet output"),
        (["audit", "--out", "out"], "Parquet tables"),
        (
            ["cost", "--prices", str(FIXTURES / "prices" / "sample.csv"), "--format", "parquet"],
            "Parquet output",
        ),
        (["summarize", "--csv", "t.csv", "--xlsx", "t.xlsx"], "--xlsx"),
    ],
)
def test_analysis_commands_name_the_extra(tmp_path: Path, args: list[str], what: str) -> None:
    target = str(FIXTURES / "score" / "rcp_pass")
    done = _core(*args[:1], target, *args[1:], cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert what in done.stderr and "pip install 'mllog-check[analysis]'" in done.stderr
