"""The built wheel works on its own: installed into a fresh virtual environment and run
from another folder, it parses a fixture, with the grammar and schemas inside it."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # From a clean copy: setuptools reuses a checkout's build/ folder (left by
    # `pip install .`, the README's first command), whose stale files would ship.
    source = tmp_path_factory.mktemp("source") / "mllog-check"
    junk = shutil.ignore_patterns(
        "build", "dist", "*.egg-info", ".git", ".*_cache", ".hypothesis", "__pycache__"
    )
    shutil.copytree(ROOT, source, ignore=junk)
    # pip's build isolation fetches the build backend pyproject.toml asks for.
    done = _run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-w", str(out)], cwd=out
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (found,) = out.glob("mllog_check-*.whl")
    return found


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


def _running_site_dirs() -> list[str]:
    """Where the interpreter running the tests finds the dependencies: its own
    site-packages (a venv's, or the system's when run system-wide), the user's, and any
    other folder on its path (PYTHONPATH); not the standard library, which the fresh
    venv has from the same base interpreter."""
    stdlib = {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    dirs += [p for p in sys.path if p and not any(p.startswith(s) for s in stdlib if s)]
    seen: dict[str, None] = {}
    for d in dirs:
        if Path(d).is_dir():
            seen.setdefault(str(Path(d).resolve()))
    return list(seen)


def fresh_venv(env: Path) -> Path:
    """A venv that sees the *running* interpreter's dependencies, whatever made it.

    Not system_site_packages=True: inside a virtual environment that is the base
    interpreter's site-packages, which lacks the dependencies. A .pth file of plain paths
    appends the running interpreter's site dirs after the venv's own, so the wheel
    installed into the venv wins, and .pth files there (the outer editable install of
    mllog-check) are not run.
    """
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env)
    python = env / "bin" / "python"
    own = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(own) / "outer-dependencies.pth").write_text("\n".join(_running_site_dirs()) + "\n")
    return python


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
