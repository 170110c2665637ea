"""The docs' mentions of the latest round and lists of rounds follow the registry."""

from __future__ import annotations

import round_mentions


def test_round_mentions_are_current() -> None:
    assert round_mentions.stale() == [], "python scripts/round_mentions.py"


def test_a_stale_mention_is_rewritten() -> None:
    text = "every round from v0.6 to v5.9 (`schemas/rules/`)"
    assert round_mentions.rewrite("README.md", text + "\n" + _rest()) != text + "\n" + _rest()
    assert "every round from v0.6 to v" + round_mentions.latest() in round_mentions.rewrite(
        "README.md", text + "\n" + _rest()
    )


def _rest() -> str:
    from conftest import ROOT

    return (ROOT / "README.md").read_text(encoding="utf-8")
