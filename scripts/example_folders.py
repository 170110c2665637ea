"""Catalog examples that are folders: build them, and show two of them as a diff.

An example names a fixture folder relative to the repository root, optionally followed
by edits, one a line, applied to a temporary copy (text, not code)::

    fixtures/package/clean/Acme
    delete systems/acme-8x.json
    replace results/acme-8x/resnet/result_0.txt: "value": "open" => "value": "closed"

Edits (paths relative to the example folder, except a copy's source, relative to the
repository root):

- ``delete PATH``: remove a file or folder
- ``delete-line PATH: TEXT``: remove the first line containing TEXT
- ``replace PATH: OLD => NEW``: replace the first OLD (which must be there) by NEW
- ``append PATH: TEXT``: add a line at the end (a new file if there is none)
- ``rename PATH -> NEW``: move a file or folder
- ``copy SOURCE -> PATH``: copy a fixture file or folder of the repository

Variants of a folder, named before it: ``link-escape: FOLDER`` (a result file replaced by
a link leaving the tree), ``unreadable: FOLDER`` (each system description a broken link),
``large-file: FOLDER`` (a sparse 50 MiB + 1 byte file in benchmarks/) and
``broken-link: FOLDER`` (a link in benchmarks/ to a file that does not exist).

Test and doc tooling (tests/catalog_examples.py runs examples, scripts/codes_doc.py
renders them); nothing of it ships in the wheel.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(example: str, tmp: Path) -> Path:
    """The example's folder: the fixture itself, or an edited copy under ``tmp``."""
    first, *edits = example.strip().splitlines()
    kind, _, folder = first.rpartition(": ")
    source = ROOT / folder
    if not kind and not edits:
        return source
    root = tmp / "tree" / source.name
    shutil.copytree(source, root, symlinks=True)
    if kind:
        _variant(kind, root, tmp)
    for edit in edits:
        _edit(root, edit)
    return root


def _variant(kind: str, org: Path, tmp: Path) -> None:
    if kind == "link-escape":
        outside = tmp / "outside.txt"
        outside.write_text("not part of the tree\n", encoding="utf-8")
        target = next(iter(sorted(org.glob("results/*/*/result_0.txt"))))
        target.unlink()
        target.symlink_to(outside)
    elif kind == "unreadable":
        for desc in sorted(org.glob("systems/*.json")):
            desc.unlink()
            desc.symlink_to(desc.parent / "missing.json")  # broken link inside the tree
    elif kind == "large-file":
        with open(org / "benchmarks" / "checkpoint.bin", "wb") as big:
            big.truncate(50 * 1024 * 1024 + 1)  # sparse: no 50 MB written
    elif kind == "broken-link":
        (org / "benchmarks" / "data").symlink_to("missing_dataset")
    else:
        raise ValueError(f"unknown example kind {kind!r}")


def _edit(root: Path, edit: str) -> None:
    verb, _, rest = edit.partition(" ")
    if verb in ("rename", "copy"):
        source, _, target = rest.partition(" -> ")
        origin = (ROOT if verb == "copy" else root) / source
        dest = root / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        if verb == "rename":
            origin.rename(dest)
        elif origin.is_dir():
            shutil.copytree(origin, dest, dirs_exist_ok=True)
        else:
            shutil.copyfile(origin, dest)
        return
    if verb == "delete":
        path = root / rest
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        return
    name, _, arg = rest.partition(": ")
    path = root / name
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if verb == "append":
        text += arg + "\n"
    elif verb == "replace":
        old, _, new = arg.partition(" => ")
        if old not in text:
            raise ValueError(f"{edit!r}: {old!r} is not in {name}")
        text = text.replace(old, new, 1)
    elif verb == "delete-line":
        lines = text.splitlines(keepends=True)
        index = next(i for i, line in enumerate(lines) if arg in line)
        text = "".join(lines[:index] + lines[index + 1 :])
    else:
        raise ValueError(f"unknown edit {edit!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def tree_diff(good: Path, bad: Path, context: int = 1, files: int = 2) -> list[str]:
    """The files that differ between two folders, as a unified diff (line numbers in
    the hunk headers) with ``context`` lines around each change; the first ``files``
    files in full, the others named."""
    before, after = _contents(good), _contents(bad)
    changed = [n for n in sorted(before.keys() | after.keys()) if before.get(n) != after.get(n)]
    out: list[str] = []
    for name in changed[:files]:
        old, new = before.get(name), after.get(name)
        old_label = f"passes/{name}" if old is not None else "/dev/null"
        new_label = f"fails/{name}" if new is not None else "/dev/null"
        if old is None or _placeholder(old):  # added, or was a link: its start is enough
            new = _head(new)
        if new is None or _placeholder(new):
            old = _head(old)
        diff = difflib.unified_diff(
            old or [], new or [], old_label, new_label, n=context, lineterm=""
        )
        out += shorten(list(diff))
    if changed[files:]:
        out.append(f"# and {len(changed) - files} more alike: {', '.join(changed[files:])}")
    return out


def shorten(diff: list[str], limit: int = 12) -> list[str]:
    """A diff with each run of more than ``limit`` removed (or added) lines cut to its
    first three, and a comment line saying how many more."""
    out: list[str] = []
    run: list[str] = []
    for line in [*diff, ""]:
        sign = line[:1]
        if run and (sign != run[0][:1] or line.startswith(("---", "+++"))):
            more = len(run) - 3
            kind = "removed" if run[0][:1] == "-" else "added"
            out += run if len(run) <= limit else [*run[:3], f"# ... {more} more {kind} lines"]
            run = []
        if sign in "-+" and line and not line.startswith(("---", "+++")):
            run.append(line)
        elif line:
            out.append(line)
    return out


def _placeholder(lines: list[str]) -> bool:
    return len(lines) == 1 and lines[0].startswith("(")


def _head(lines: list[str] | None) -> list[str] | None:
    if lines is None or len(lines) <= 3:
        return lines
    return [*lines[:2], f"... ({len(lines) - 2} more lines)"]


def _contents(root: Path) -> dict[str, list[str]]:
    """Each entry's lines by path; a link shows where it points, a binary file its size."""
    found: dict[str, list[str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = os.readlink(path)
                where = "outside the tree" if not _inside(path, root) else "a missing file"
                if path.exists() and _inside(path, root):
                    where = "a file of the tree"
                found[key] = [f"(a link to {Path(target).name}: {where})"]
            elif path.is_file():
                data = path.read_bytes()
                try:
                    if b"\0" in data:
                        raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
                    found[key] = data.decode("utf-8").splitlines()
                except UnicodeDecodeError:
                    found[key] = [f"(binary, {len(data)} bytes)"]
        dirs[:] = [d for d in dirs if not (Path(folder) / d).is_symlink()]
    return found


def _inside(link: Path, root: Path) -> bool:
    target = Path(os.path.normpath(link.parent / os.readlink(link)))
    return target.is_relative_to(root)
