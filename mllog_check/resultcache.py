"""A result cache for ``package`` and ``audit``: one org's report, kept between runs.

Like ruff's cache (docs/audit.md, "Cache"): under the user's cache folder
(``--cache-dir``, else ``$MLLOG_CHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/mllog-check``
or the platform's), one entry per org, keyed by

- every file and folder of the org's tree: relative path, mode, size and ``st_mtime_ns``
  (an org holding a symbolic link is never cached: what it points to may change unseen);
- this build: the tool's version and the size and mtime of each of its own files
  (code, grammar, shipped data), the round registry named by ``$MLLOG_CHECK_ROUNDS``,
  the parser's and validator's libraries, the Python version;
- the call: the org's path as given and resolved, the round asked for, the project
  setting, ``--strict``, package or audit.

An entry is a checked report, never a different one: a file modified within
``RACY_NS`` of the check is not stored (its mtime could stay the same after a change,
as git's "racy" index entries), nor is one whose tree changed while it was checked.
Reading refuses links and special files, checks a digest of the payload and unpickles
only this package's data classes and enums (no other global, so a planted entry runs no
code); anything else is a miss. Writing is atomic (a new file renamed into place, never
through a link) into a folder that is not a link. docs/security.md, "Cache".
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import stat
import sys
import time
from pathlib import Path

from .errors import UsageError

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

ENV_DIR = "MLLOG_CHECK_CACHE_DIR"
# Bumped when an entry's layout changes; entries of another layout are never read.
# 2: the audit's evaluation curves in the report (PackageReport.curves); 3: as JSON text
LAYOUT = 3
MAGIC = b"mllog-check cache %d\n" % LAYOUT
# A file modified this close to the check is not trusted to keep its mtime on a change.
RACY_NS = 2_000_000_000
# An entry is a few tens of kB; anything far larger is not one of ours.
ENTRY_LIMIT = 256 << 20
# Libraries whose version can change a report (parser, schema validator, YAML, JSON).
_LIBRARIES = ("lark", "jsonschema", "yaml", "orjson")


class CacheError(UsageError):
    """The cache folder cannot be used safely (a link, not a folder)."""


def default_folder() -> Path:
    """``$MLLOG_CHECK_CACHE_DIR``, else the platform's user cache folder + mllog-check."""
    named = os.environ.get(ENV_DIR)
    if named:
        return Path(named)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "mllog-check" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "mllog-check"
    xdg = os.environ.get("XDG_CACHE_HOME")
    # XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "mllog-check"


def open_cache(folder: str | Path | None = None) -> ResultCache:
    """The cache in ``folder`` (default_folder() when None), its folder made when
    missing; CacheError when it, or a folder made for it, is a link or not a folder."""
    return ResultCache(Path(folder) if folder is not None else default_folder())


class ResultCache:
    """get/put of reports by key; every failure to read or write is a miss, silently
    (a cache never changes a result, nor fails a run)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        _make_folder(folder)
        self.build = build_stamp()
        self.hits = 0
        self.misses = 0

    def key(self, call: dict[str, Any], tree: list[Any]) -> str:
        """The entry name of a call on a tree (as ``tree_stamp`` gives it)."""
        doc = {"layout": LAYOUT, "build": self.build, "call": call, "tree": tree}
        text = json.dumps(doc, sort_keys=True, ensure_ascii=True, default=repr)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def get(self, key: str) -> Any | None:
        """The value stored under ``key``; None when there is none or it is unusable."""
        try:
            fd = _open_dir(self.folder)
        except OSError:
            self.misses += 1
            return None
        try:
            value = _read_entry(fd, key)
        finally:
            os.close(fd)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``: a new file renamed into place, never through a
        link; nothing when the folder cannot be written."""
        buffer = io.BytesIO()
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        payload = buffer.getvalue()
        data = MAGIC + key.encode("ascii") + b"\n" + hashlib.sha256(payload).digest() + payload
        try:
            fd = _open_dir(self.folder)
        except OSError:
            return
        temp = f".{key}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _flag("O_NOFOLLOW") | _flag("O_CLOEXEC")
            out = os.open(temp, flags | _flag("O_BINARY"), 0o600, dir_fd=_dir_fd(fd))
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view) :]
            finally:
                os.close(out)
            os.replace(temp, _entry(key), src_dir_fd=_dir_fd(fd), dst_dir_fd=_dir_fd(fd))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=_dir_fd(fd))
        finally:
            os.close(fd)


def _entry(key: str) -> str:
    return f"{key}.bin"


def _flag(name: str) -> int:
    return int(getattr(os, name, 0))


# os.replace takes dir_fd where os.rename does (the same call; only rename is listed)
_DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd


def _dir_fd(fd: int) -> int | None:
    return fd if _DIR_FD else None


def _open_dir(folder: Path) -> int:
    """A descriptor of the cache folder, never through a link (OSError otherwise); where
    the system lacks ``dir_fd`` the names below are relative to the working folder, so
    that case opens nothing and the cache is off."""
    if not _DIR_FD:
        raise OSError("no dir_fd on this system: cache off")
    return os.open(folder, os.O_RDONLY | _flag("O_DIRECTORY") | _flag("O_NOFOLLOW"))


def _make_folder(folder: Path) -> None:
    """Make ``folder`` (0o700) and its missing parents; CacheError when the folder is a
    link or not a folder (its entries would land wherever it points)."""
    if folder.is_symlink():
        raise CacheError(f"{folder}: a symbolic link: refusing to use it as the cache")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise CacheError(f"{folder}: exists and is not a folder") from None
    except OSError as err:
        raise CacheError(f"{folder}: cannot make the folder ({err.strerror or err})") from None
    if folder.is_symlink() or not folder.is_dir():  # replaced since
        raise CacheError(f"{folder}: not a plain folder: refusing to use it as the cache")
    tag = folder / "CACHEDIR.TAG"  # backup tools skip it (bford.info/cachedir)
    if not tag.exists() and not tag.is_symlink():
        from .outputs import OutputError, write_output

        with contextlib.suppress(OutputError):
            write_output(tag, "Signature: 8a477f597d28d172789f06886806bc55\n")


def _read_entry(fd: int, key: str) -> Any | None:
    flags = os.O_RDONLY | _flag("O_NOFOLLOW") | _flag("O_NONBLOCK") | _flag("O_CLOEXEC")
    try:
        entry = os.open(_entry(key), flags | _flag("O_BINARY"), dir_fd=_dir_fd(fd))
    except OSError:
        return None
    try:
        info = os.fstat(entry)
        if not stat.S_ISREG(info.st_mode) or info.st_size > ENTRY_LIMIT:
            return None
        with os.fdopen(os.dup(entry), "rb") as handle:
            # the size fstat gave, not the limit: read(n) allocates n bytes first
            data = handle.read(info.st_size + 1)
        if len(data) > ENTRY_LIMIT:
            return None
    except OSError:
        return None
    finally:
        os.close(entry)
    head = MAGIC + key.encode("ascii") + b"\n"
    if not data.startswith(head) or len(data) < len(head) + 32:
        return None
    digest, payload = data[len(head) : len(head) + 32], data[len(head) + 32 :]
    if hashlib.sha256(payload).digest() != digest:
        return None
    try:
        return _Restricted(io.BytesIO(payload)).load()
    except Exception:  # a corrupt or foreign entry is a miss, whatever it raises
        return None


class _Pickler(pickle.Pickler):
    """An enum member as its class called with its value, on every Python: from 3.12 a
    member pickles by name through ``getattr``, a global the reader must refuse."""

    def reducer_override(self, obj: Any) -> Any:
        import enum

        if isinstance(obj, enum.Enum):
            return type(obj), (obj.value,)
        return NotImplemented


class _Restricted(pickle.Unpickler):
    """Unpickles plain data and this package's dataclasses, enums and values only (Python's
    pickle documentation, "Restricting Globals"): no function, no other class."""

    def find_class(self, module: str, name: str) -> Any:
        import dataclasses
        import enum

        from .values import Value

        if module == "builtins" and name in ("set", "frozenset"):
            return {"set": set, "frozenset": frozenset}[name]
        if module == "mllog_check" or module.startswith("mllog_check."):
            found = getattr(_module(module), name, None)
            if isinstance(found, type) and (
                dataclasses.is_dataclass(found) or issubclass(found, (enum.Enum, Value))
            ):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


def _module(name: str) -> Any:
    """One of this package's modules, imported when a report holds a class of one the
    run has not imported yet (a cached check imports less); never a __main__."""
    import importlib

    if "__main__" in name.split("."):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# --- stamps ------------------------------------------------------------------------------


def tree_stamp(root: Path) -> tuple[list[Any], int] | None:
    """Every entry below ``root`` (itself included) as [relative path, mode, size,
    mtime_ns], sorted, and the newest mtime_ns; None when the tree holds a symbolic link
    or cannot be listed whole (such a tree is never cached)."""
    rows: list[Any] = []
    newest = 0
    try:
        top = os.lstat(root)
    except OSError:
        return None
    if not stat.S_ISDIR(top.st_mode):
        return None
    stack = [("", os.fspath(root))]
    try:
        while stack:
            rel, path = stack.pop()
            with os.scandir(path) as entries:
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    if stat.S_ISLNK(info.st_mode):
                        return None
                    name = f"{rel}/{entry.name}" if rel else entry.name
                    if stat.S_ISDIR(info.st_mode):
                        rows.append([name, info.st_mode, 0, 0])
                        stack.append((name, entry.path))
                        continue
                    rows.append([name, info.st_mode, info.st_size, info.st_mtime_ns])
                    newest = max(newest, info.st_mtime_ns)
    except OSError:
        return None
    rows.sort()
    return rows, newest


def racy(newest_mtime_ns: int, started_ns: int) -> bool:
    """A file modified within RACY_NS of the check's start (or later): not stored."""
    return newest_mtime_ns >= started_ns - RACY_NS


_BUILD: list[Any] = []


def build_stamp() -> list[Any]:
    """This build: version, Python, each of the package's own files and the shipped data
    (path, size, mtime_ns), the registry named by $MLLOG_CHECK_ROUNDS, and the files of
    the libraries that shape a report. A checkout edited since is another build."""
    if _BUILD:
        return _BUILD
    import importlib.util

    from . import __version__
    from .prepared import schemas_dir

    package = Path(__file__).resolve().parent
    stamp: list[Any] = [__version__, sys.version, str(package)]
    for folder in (package, schemas_dir().resolve(), _grammars()):
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                stamp.append(_file(os.path.join(dirpath, name)))
    stamp.append(_file(os.environ.get("MLLOG_CHECK_ROUNDS") or ""))
    for library in _LIBRARIES:
        try:
            spec = importlib.util.find_spec(library)
        except (ImportError, ValueError):
            spec = None
        stamp.append([library, _file(spec.origin) if spec and spec.origin else None])
    _BUILD.extend(stamp)
    return _BUILD


def _grammars() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("mllog_check.grammars")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]).resolve() if locations else Path(__file__).resolve().parent


def _file(path: str) -> list[Any]:
    if not path:
        return [path]
    try:
        info = os.stat(path)
    except OSError:
        return [path, None]
    return [path, info.st_size, info.st_mtime_ns]
