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
    return [Path(name) for name in _staged(cwd)]


def _staged(cwd: Path) -> list[str]:
    """The staged paths as strings below ``cwd`` (a Path each costs more than the check
    of a hundred thousand of them)."""
    names = _git(cwd, "diff", "--cached", "--name-only", "--relative", "-z").split("\0")
    top = str(cwd)
    return [os.path.join(top, name) for name in names if name]


def repository_root(cwd: Path) -> Path:
    """The working tree's top folder, spelt from ``cwd`` (``git rev-parse --show-cdup``:
    the same spelling as ``cwd`` whatever links lead to it)."""
    up = _git(cwd, "rev-parse", "--show-cdup").strip()
    return Path(os.path.normpath(cwd / up)) if up else cwd


def org_of(path: Path, root: Path) -> Path | None:
    """The nearest org folder above ``path`` (which may be deleted) inside the
    repository ``root``, None outside one: a ``results/`` folder beside the repository
    is no org of its commits."""
    found = _Folders(root).org_above(str(path))
    return None if found is None else Path(found)


def _linked_org(folder: Path) -> bool:
    """A link to a folder that would be an org: never followed, said so."""
    return folder.is_symlink() and folder.is_dir() and (folder / "results").is_dir()


class _Folders:
    """What each folder of the repository is, asked of the file system once: staged
    paths share their folders (100,000 paths outside any org took 162 s when every
    path's every parent was looked at again, through pathlib; docs/security.md). Paths are
    strings here, normalized as git and ``repository_root`` spell them."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._inside = os.path.join(self.root, "")  # the root with one trailing "/"
        self._org: dict[str, str | None] = {}  # folder -> nearest org at or above it
        self._seen: set[str] = set()  # folders whose chain up to root was looked at
        self.links: set[str] = set()

    def org_above(self, path: str) -> str | None:
        """As ``org_of``: the nearest org folder above ``path``, inside ``root``."""
        if not path.startswith(self._inside):
            return None
        chain: list[str] = []
        here, found = os.path.dirname(path), None
        while True:
            if here in self._org:
                found = self._org[here]
                break
            chain.append(here)
            if is_org_folder(Path(here)):
                found = here
                break
            if len(here) <= len(self.root):  # the root itself
                break
            here = os.path.dirname(here)
        for folder in chain:
            self._org[folder] = found
        return found

    def look_for_links(self, path: str) -> None:
        """Org folders that are links, from ``path`` up to (not with) ``root``."""
        if not path.startswith(self._inside):
            return
        here = path
        while len(here) > len(self.root) and here not in self._seen:
            self._seen.add(here)
            if _linked_org(Path(here)):
                self.links.add(here)
            here = os.path.dirname(here)


class Touched:
    """The org folders to check, and the linked ones not followed (said on stderr)."""

    def __init__(self, orgs: list[Path], links: list[Path]) -> None:
        self.orgs = orgs
        self.links = links


def touched_orgs(cwd: Path) -> Touched:
    """Every org above a staged path, by name, inside the repository; every org below
    ``cwd`` with nothing staged. Org folders that are links are listed apart."""
    paths = _staged(cwd)
    if not paths:
        return all_orgs(cwd)
    folders = _Folders(repository_root(cwd))
    found = {org for org in map(folders.org_above, paths) if org is not None}
    for path in paths:
        folders.look_for_links(path)
    return Touched(sorted(map(Path, found)), sorted(map(Path, folders.links)))


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
