"""CHANGELOG.md names the version pyproject.toml and the package say (docs: CONTRIBUTING.md)."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

import mllog_check


def test_the_changelogs_newest_version_is_the_packages() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert headings[0] == "Unreleased"
    # the version the Unreleased section is to be released as, or the newest release
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    said = re.search(r"^Version (\d+\.\d+\.\d+)", unreleased, flags=re.M)
    newest = said[1] if said else headings[1]
    assert newest == version["version"] == mllog_check.__version__
    # each released version once, newest first
    released = [tuple(int(n) for n in h.split(".")) for h in headings[1:]]
    assert released == sorted(set(released), reverse=True)
