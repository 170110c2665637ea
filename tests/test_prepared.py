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


def test_a_ruleset_depends_on_its_own_rule_files_and_registry_entry_only() -> None:
    """Adding a round or editing another round's entry leaves a ruleset's prepared file as
    it is (a one-round change is a one-round diff); its own entry is a source."""
    import json

    doc = json.loads((prepared.prepared_dir() / "training-5.1.0.json").read_text())
    assert sorted(doc["sources"]) == [
        "rounds.yaml#5.1.0",
        *(f"rules/training-{v}.yaml" for v in ("1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0",
                                              "3.1.0", "4.0.0", "4.1.0", "5.0.0", "5.1.0")),
    ]  # fmt: skip
    registry = prepared.read("rounds")
    assert isinstance(registry, dict)
    stamp = prepared.fingerprint("rounds.yaml#5.1.0", registry)
    assert stamp == doc["sources"]["rounds.yaml#5.1.0"]
    entries = registry["rounds"]
    later = {**registry, "rounds": [*entries, {"version": "9.9.0", "benchmarks": {"x": 1}}]}
    assert prepared.fingerprint("rounds.yaml#5.1.0", later) == stamp
    (own,) = [e for e in entries if e["version"] == "5.1.0"]
    changed = [e if e is not own else {**own, "benchmarks": {}} for e in entries]
    assert prepared.fingerprint("rounds.yaml#5.1.0", {"rounds": changed}) != stamp
    # one item per line: a diff of a prepared file shows what changed
    text = (prepared.prepared_dir() / "training-5.1.0.json").read_text()
    assert max(len(line) for line in text.splitlines()) < 200


def test_prepared_ruleset_equals_the_rule_files() -> None:
    for name in ("1.0.0", "2.0.0", "5.1.0"):
        assert resolved(name) == resolve_with_sources(name)[0]


def test_a_stale_prepared_file_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (prepared.prepared_dir() / "training-1.0.0.json").read_text()
    (tmp_path / "training-1.0.0.json").write_text(
        source.replace('"sources": {\n  "', '"sources": {\n  "x', 1)
    )
    # its registry entry is read from the prepared registry beside it
    (tmp_path / "rounds.json").write_bytes((prepared.prepared_dir() / "rounds.json").read_bytes())
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
