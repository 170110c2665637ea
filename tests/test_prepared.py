"""Prepared data (schemas/prepared/): current, used by a check, and a check writes nothing."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from mllog_check import prepared
from mllog_check.rules.loader import resolve_with_sources, resolved

GOOD = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"


def test_prepared_files_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "prepare_data.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + "run: python scripts/prepare_data.py"


def test_prepared_ruleset_equals_the_rule_files() -> None:
    for name in ("1.0.0", "2.0.0", "5.1.0"):
        assert resolved(name) == resolve_with_sources(name)[0]


def test_a_stale_prepared_file_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (prepared.prepared_dir() / "training-1.0.0.json").read_text()
    (tmp_path / "training-1.0.0.json").write_text(
        source.replace('"sources":{"', '"sources":{"x', 1)
    )
    monkeypatch.setattr(prepared, "prepared_dir", lambda: tmp_path)
    assert prepared.read("training-1.0.0") is None
    (tmp_path / "training-1.0.0.json").write_text(source)
    assert prepared.read("training-1.0.0") is not None


def test_a_check_reads_no_yaml_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)  # read-only: any write would fail or show
    probe = (
        "import sys\n"
        "from mllog_check.cli import main\n"
        "try:\n"
        f"    main(['check', '--ruleset', '1.0.0', {str(GOOD)!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "print(sorted({'yaml', 'jsonschema', 'importlib.resources'} & set(sys.modules)))\n"
    )
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    home.chmod(stat.S_IRWXU)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert list(home.rglob("*")) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
