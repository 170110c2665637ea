"""CI (.ci/run) runs the README's two commands, as written, inside a fresh venv."""

from __future__ import annotations

import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _readme_commands() -> list[str]:
    section = README.split("## Two commands on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)


def test_ci_runs_the_readmes_commands_verbatim() -> None:
    commands = _readme_commands()
    assert len(commands) == 2 and commands[1].endswith("python -m pytest")
    lines = CI.splitlines()
    for command in commands:
        assert command in lines, f"{command!r} is not a line of .ci/run"


def test_ci_runs_them_in_a_fresh_venv_after_the_corpus_check() -> None:
    lines = CI.splitlines()
    venv = next(i for i, line in enumerate(lines) if re.match(r"python -m venv ", line))
    activate = next(i for i, line in enumerate(lines) if re.match(r"source .*/bin/activate", line))
    first = lines.index(_readme_commands()[0])
    corpus = next(i for i, line in enumerate(lines) if "FATAL: CI=true" in line)
    assert corpus < venv < activate < first
    assert "set -euo pipefail" in lines


def test_the_readme_stays_a_page_a_new_user_reads() -> None:
    """README is what it is, how to install, a short tour and links; figures and method
    live in docs/ (docs/benchmarks.md), so it stays within 250 lines."""
    assert len(README.splitlines()) <= 250
    linked = {m for m in README.split("`") if m.startswith("docs/") and m.endswith(".md")}
    assert all((ROOT / page).is_file() for page in linked), linked
