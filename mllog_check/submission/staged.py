"""The orgs a commit touches: what the ``mllog-check-package`` pre-commit hook checks.

pre-commit passes a hook only the files that exist, so a deleted run would never reach a
hook that reads its file names. The hook therefore asks git for the staged paths
(``git diff --cached --name-only``: added, changed, renamed and deleted alike) and
checks every org folder (``results.tree.is_org_folder``) above one of them; a change
under ``systems/`` or ``benchmarks/`` touches its org as a change under ``results/``
does. With nothing staged (``pre-commit run --all-files`` in CI) every org below the
working folder is checked. docs/package.md, "Hooks and CI".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..errors import UsageError
from ..results.tree import is_org_folder


class GitUnavailable(UsageError):
    """git could not list the staged paths (not a repository, git missing)."""


def staged_paths(cwd: Path) -> list[Path]:
    """The staged paths (deletions included) relative to ``cwd``, as git lists them."""
    command = ["git", "diff", "--cached", "--name-only", "--relative", "-z"]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError) as err:
        raise GitUnavailable(f"git diff --cached: {err}") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitUnavailable(f"git diff --cached: {why[-1] if why else done.returncode}")
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [cwd / name for name in names if name]


def org_of(path: Path) -> Path | None:
    """The nearest org folder above ``path`` (which may be deleted), None outside one."""
    for parent in path.parents:
        if is_org_folder(parent):
            return parent
    return None


def touched_orgs(cwd: Path) -> list[Path]:
    """Every org above a staged path, by name; every org below ``cwd`` with nothing
    staged."""
    paths = staged_paths(cwd)
    if not paths:
        return all_orgs(cwd)
    found = {org for org in (org_of(p) for p in paths) if org is not None}
    return sorted(found)


def all_orgs(cwd: Path) -> list[Path]:
    """The org folders at or below ``cwd`` (a results repository: ``<org>/`` or
    ``<round>/<org>/``), without descending into an org."""
    if is_org_folder(cwd):
        return [cwd]
    found: list[Path] = []
    for child in sorted(p for p in cwd.iterdir() if p.is_dir() and not p.is_symlink()):
        if child.name.startswith("."):
            continue
        if is_org_folder(child):
            found.append(child)
        else:
            found.extend(o for o in sorted(child.iterdir()) if is_org_folder(o))
    return found
