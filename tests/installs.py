"""Installing mllog-check as a user would, for tests/test_wheel.py and benchmarks/check_bench.py:
a wheel built from a clean copy of the checkout, in a fresh venv that finds the
dependencies where the running interpreter has them (no network)."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path


def build_wheel(root: Path, out: Path) -> Path:
    """The wheel of the checkout at ``root``, written into ``out``."""
    with tempfile.TemporaryDirectory() as tmp:
        # From a clean copy: setuptools reuses a checkout's build/ folder (left by
        # `pip install .`, the README's first command), whose stale files would ship.
        source = Path(tmp) / "mllog-check"
        junk = shutil.ignore_patterns(
            "build", "dist", "*.egg-info", ".git", ".*_cache", ".hypothesis", "__pycache__"
        )
        shutil.copytree(root, source, ignore=junk)
        # pip's build isolation fetches the build backend pyproject.toml asks for.
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-w", str(out)],
            cwd=out,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    (found,) = out.glob("mllog_check-*.whl")
    return found


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


def install_wheel(wheel: Path, env: Path) -> Path:
    """A fresh venv at ``env`` with the wheel installed; its python."""
    python = fresh_venv(env)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--force-reinstall", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    return python
