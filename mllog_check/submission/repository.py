"""The repository checks of the verify script's last step (the upload is a git push).

The official ``repo_checker`` walks the whole org folder (benchmarks/ too, without
following links) and rejects a file or folder name with a space or a leading ``.``, a
file over 50 MB and a symbolic link whose target does not exist (MLP041-MLP043). It
prints ``CHECKS FAILED`` and exits 0: the line is its verdict. In force from the round
of the registry's ``repo_checked`` policy (docs/package.md, "Repository checks").

Only ``lstat`` and ``readlink``: nothing is opened or followed (docs/security.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..inputs import walk_tree
from ..problems import Problem
from ..rounds import Round
from . import codes

# repo_checker's limit: 50 * 1024 * 1024 bytes ("Files > 50MB").
SIZE_LIMIT = 50 * 1024 * 1024


# The codes of repo_checker's checks: its verdict is theirs, apart from the package
# checker's (one line per official tool: docs/package.md).
REPOSITORY_CODES = frozenset(
    info.code for info in (codes.GIT_UNFRIENDLY_NAME, codes.FILE_TOO_LARGE, codes.BROKEN_LINK)
)


def repository_verdict(rnd: Round, problems: list[Problem]) -> bool | None:
    """repo_checker's verdict (no error of its checks); None before the round checks it."""
    if not rnd.applies("repo_checked"):
        return None
    return not any(p.is_error and p.rule in REPOSITORY_CODES for p in problems)


def check_repository(root: Path, rnd: Round) -> list[Problem]:
    """MLP041-MLP043 for every entry below ``root`` (and ``root``'s own name), sorted."""
    if not rnd.applies("repo_checked"):
        return []
    problems = _name(root, root.resolve().name)
    # Without recursion: os.walk raised RecursionError on a tree 1,100 folders deep.
    for folder, dirs, files in walk_tree(root, lambda err: None):
        dirs.sort()
        here = Path(folder)
        for name in sorted(dirs + files):
            problems.extend(_entry(here / name, name))
    return sorted(problems)


def _entry(path: Path, name: str) -> list[Problem]:
    found = _name(path, name)
    try:
        info = path.lstat()
    except OSError:  # gone meanwhile: nothing left to upload
        return found
    if path.is_symlink():
        found.extend(_link(path))
    elif path.is_file() and info.st_size > SIZE_LIMIT:
        mb = info.st_size / (1024 * 1024)
        msg = (
            f"{mb:,.1f} MB: the official repo_checker rejects files over 50 MB; remove it "
            "or reduce its size"
        )
        found.append(codes.FILE_TOO_LARGE.problem(str(path), msg))
    return found


def _name(path: Path, name: str) -> list[Problem]:
    why = []
    if name.startswith("."):
        why.append("starts with '.'")
    if " " in name:
        why.append("holds a space")
    if not why:
        return []
    msg = (
        f"the name {name!r} {' and '.join(why)}: the official repo_checker rejects "
        "git-unfriendly names; rename or remove it"
    )
    return [codes.GIT_UNFRIENDLY_NAME.problem(str(path), msg)]


def _link(path: Path) -> list[Problem]:
    """MLP043 for a link whose target does not exist (judged from the link's folder, as
    git and a reader of the published tree see it)."""
    try:
        target = os.readlink(path)
    except OSError:
        return []
    if (path.parent / target).exists():
        return []
    msg = f"symbolic link to {target!r}, which does not exist: the official repo_checker rejects it"
    return [codes.BROKEN_LINK.problem(str(path), msg)]
