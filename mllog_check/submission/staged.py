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

import os
import subprocess
from pathlib import Path

from ..errors import UsageError
from ..results.tree import is_org_folder


class GitUnavailable(UsageError):
    """git could not list the staged paths (not a repository, git missing)."""


def _git(cwd: Path, *args: str) -> str:
    """What ``git ARGS`` prints in ``cwd``; GitUnavailable (naming the call) when it
    cannot run or fails."""
    name = "git " + " ".join(args[:2])
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError) as err:
        raise GitUnavailable(f"{name}: {err}") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitUnavailable(f"{name}: {why[-1] if why else done.returncode}")
    return done.stdout.decode("utf-8", "surrogateescape")


def staged_paths(cwd: Path) -> list[Path]:
    """The staged paths (deletions included) relative to ``cwd``, as git lists them."""
    names = _git(cwd, "diff", "--cached", "--name-only", "--relative", "-z").split("\0")
    return [cwd / name for name in names if name]


def repository_root(cwd: Path) -> Path:
    """The working tree's top folder, spelt from ``cwd`` (``git rev-parse --show-cdup``:
    the same spelling as ``cwd`` whatever links lead to it)."""
    up = _git(cwd, "rev-parse", "--show-cdup").strip()
    return Path(os.path.normpath(cwd / up)) if up else cwd


def _within(path: Path, root: Path) -> list[Path]:
    """``path`` and its parents, up to ``root`` and never above it."""
    chain = [path, *path.parents]
    return chain[: chain.index(root) + 1] if root in chain else []


def org_of(path: Path, root: Path) -> Path | None:
    """The nearest org folder above ``path`` (which may be deleted) inside the
    repository ``root``, None outside one: a ``results/`` folder beside the repository
    is no org of its commits."""
    for parent in _within(path, root)[1:]:
        if is_org_folder(parent):
            return parent
    return None


def _linked_org(folder: Path) -> bool:
    """A link to a folder that would be an org: never followed, said so."""
    return folder.is_symlink() and folder.is_dir() and (folder / "results").is_dir()


class Touched:
    """The org folders to check, and the linked ones not followed (said on stderr)."""

    def __init__(self, orgs: list[Path], links: list[Path]) -> None:
        self.orgs = orgs
        self.links = links


def touched_orgs(cwd: Path) -> Touched:
    """Every org above a staged path, by name, inside the repository; every org below
    ``cwd`` with nothing staged. Org folders that are links are listed apart."""
    paths = staged_paths(cwd)
    if not paths:
        return all_orgs(cwd)
    root = repository_root(cwd)
    found = {org for org in (org_of(p, root) for p in paths) if org is not None}
    links = {f for p in paths for f in _within(p, root)[:-1] if _linked_org(f)}
    return Touched(sorted(found), sorted(links))


def all_orgs(cwd: Path) -> Touched:
    """The org folders at or below ``cwd`` (a results repository: ``<org>/`` or
    ``<round>/<org>/``), without descending into an org; linked ones apart."""
    if is_org_folder(cwd):
        return Touched([cwd], [])
    found: list[Path] = []
    links: list[Path] = []
    for child in sorted(p for p in cwd.iterdir() if p.is_dir()):
        if child.name.startswith("."):
            continue
        if _linked_org(child):
            links.append(child)
        elif child.is_symlink():
            continue
        elif is_org_folder(child):
            found.append(child)
        else:
            found.extend(o for o in sorted(child.iterdir()) if is_org_folder(o))
            links.extend(o for o in sorted(child.iterdir()) if _linked_org(o))
    return Touched(found, links)
