"""The built wheel works on its own: installed into a fresh virtual environment and run
from another folder, it parses a fixture, with the grammar and schemas inside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT
from installs import build_wheel, fresh_venv

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(ROOT, tmp_path_factory.mktemp("dist"))


def test_wheel_holds_the_grammar_and_every_schema_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mllog_check/grammars/mllog.lark" in names
    assert "mllog_check/schemas/__init__.py" in names
    data = [p for p in (ROOT / "schemas").rglob("*") if p.suffix in (".json", ".yaml", ".yml")]
    missing = [
        str(p)
        for p in data
        if f"mllog_check/schemas/{p.relative_to(ROOT / 'schemas')}" not in names
    ]
    assert missing == []


def test_wheel_holds_no_test_or_doc_tooling(wheel: Path) -> None:
    """Doc generators, example runners and anything that looks for the repository root
    live in scripts/ and tests/, not in the package."""
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert not [n for n in names if n.startswith(("tests/", "scripts/", "fixtures/"))]
    tooling = ("codes_doc.py", "rules/docs.py", "submission/examples.py")
    assert not [n for n in names if n.endswith(tooling)]
    sources = [n for n in names if n.startswith("mllog_check/") and n.endswith(".py")]
    assert [n for n in sources if b".parents[" in archive.read(n)] == []


def test_fresh_venv_does_not_depend_on_the_base_interpreter(tmp_path: Path) -> None:
    """The dependencies come from where the test runner has them (here, often a venv
    whose base interpreter has none of them)."""
    python = fresh_venv(tmp_path / "venv")
    done = _run(
        [str(python), "-c", "import lark, orjson, jsonschema, click, yaml; print('ok')"],
        cwd=tmp_path,
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_wheel_installs_in_a_fresh_venv_and_runs_from_elsewhere(
    wheel: Path, tmp_path: Path
) -> None:
    env = tmp_path / "venv"
    # Dependencies without network, from the running interpreter; mllog-check itself
    # must come from the wheel, which the __file__ check below proves.
    python = fresh_venv(env)
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--force-reinstall",
            str(wheel),
        ],
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run(
        [
            str(python),
            "-c",
            "import mllog_check, importlib.resources as r; "
            "print(mllog_check.__file__); "
            "print(r.files('mllog_check.grammars').joinpath('mllog.lark').is_file())",
        ],
        cwd=work,
    )
    location, grammar = where.stdout.split()
    assert Path(location).is_relative_to(env), where.stdout + where.stderr
    assert grammar == "True"
    parsed = _run(
        [
            str(env / "bin" / "mllog-check"),
            "parse",
            "--format",
            "csv",
            str(FIXTURES / "parse" / "v06.txt"),
        ],
        cwd=work,
    )
    assert parsed.returncode == 0, parsed.stderr
    assert parsed.stdout.splitlines()[1].split(",")[6:8] == ["", "submission_org"]
    # the grammar path (lark reading mllog.lark from the installed package) works too
    bad = subprocess.run(
        [str(env / "bin" / "mllog-check"), "parse", "-q", "-"],
        cwd=work,
        input=':::MLL submission_org: {"value": 1}\n',
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    assert bad.stderr.startswith("<stdin>:1:8: error: MLS001 the timestamp (seconds) is missing")
    # the README's main job, from the installed wheel: rules, scoring and system
    # description schemas all come from inside the package
    sample = work / "Acme"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", sample)
    main_job = _run(
        [str(env / "bin" / "mllog-check"), "package", str(sample), "--ruleset", "1.0.0"], cwd=work
    )
    assert main_job.returncode == 0, main_job.stdout + main_job.stderr
    assert "score acme-8x/resnet (open): 4.13 min" in main_job.stdout
    assert "PASS Acme (1.0.0): 0 errors, 0 warnings\n" in main_job.stdout
    assert main_job.stdout.rstrip().endswith(
        "beyond the official checker: 0 warnings (errors with --strict)"
    )
    # the HTML report's templates ship inside the package too
    page = work / "report.html"
    command = [str(env / "bin" / "mllog-check"), "report", str(sample), "--ruleset", "1.0.0"]
    made = _run([*command, "--out", str(page)], cwd=work)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "</html>" in page.read_text(encoding="utf-8")
