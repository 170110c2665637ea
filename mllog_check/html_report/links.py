"""Links from the report to the logs (docs/report.md, "Links").

A folder or file name is data someone else wrote: a folder called ``javascript:…``
must never become a link's scheme. Every link is either a relative path whose segments
are percent-encoded and which starts with ``./`` or ``../`` (so that no part of it can
read as a scheme), an absolute ``file:`` URL, or ``--link-base`` (an ``https:``,
``http:`` or ``file:`` URL given by the user) followed by the encoded path.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote, urlsplit

from ..errors import UsageError

LINK_SCHEMES = ("https", "http", "file")


class LinkBaseError(UsageError, ValueError):
    """--link-base is not an absolute https:, http: or file: URL."""


def check_link_base(link_base: str) -> str:
    """The base as given, when it is an absolute URL of an allowed scheme."""
    parts = urlsplit(link_base)
    if parts.scheme.lower() not in LINK_SCHEMES or not (parts.netloc or parts.path):
        raise LinkBaseError(
            f"--link-base {link_base!r}: give an absolute https:, http: or file: URL "
            "(e.g. https://github.com/mlcommons/training_results_v5.1/blob/main)"
        )
    if any(ord(c) < 0x21 or c in '"<>\\^`{|}' for c in link_base):
        raise LinkBaseError(f"--link-base {link_base!r}: spaces and quotes must be encoded")
    return link_base


def encode_path(relative: str) -> str:
    """Each segment percent-encoded (``/`` kept between them)."""
    return "/".join(quote(part, safe="") for part in relative.split("/"))


def relative_link(target: str, out_dir: str) -> str:
    """``target`` (an absolute path) as seen from the folder the report is written in:
    ``./a/b`` or ``../a/b``, encoded; a ``file:`` URL when no relative path exists."""
    try:
        rel = Path(os.path.relpath(target, out_dir)).as_posix()
    except ValueError:  # another drive (Windows): no relative path
        return Path(target).as_uri()
    encoded = encode_path(rel)
    return encoded if encoded.startswith("../") or encoded == ".." else "./" + encoded


def log_link(shown: str, base: str, out_dir: str, link_base: str | None = None) -> str:
    """The href of a log shown as ``shown`` (relative to ``base``, or absolute when it
    lies outside it)."""
    target = os.path.normpath(os.path.join(base, shown))
    inside = not os.path.isabs(shown) and shown.split("/", 1)[0] != ".."
    if link_base is not None and inside:
        return link_base.rstrip("/") + "/" + encode_path(Path(shown).as_posix())
    if link_base is not None:  # outside the tree the base names: an absolute file URL
        return Path(target).as_uri()
    return relative_link(target, out_dir)
