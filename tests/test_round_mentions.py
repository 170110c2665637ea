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


def test_the_scores_table_has_a_row_per_round_with_registry_columns() -> None:
    from conftest import ROOT

    text = (ROOT / "docs" / "scores.md").read_text(encoding="utf-8")
    without = "\n".join(line for line in text.splitlines() if not line.startswith("| v6.1 |"))
    assert "| v6.1 | − dlrm_dcnv2, llama31_405b; + dlrmv4 10, qwen35_397b_grpo 3 | minimum | " \
        "training_6.1.0 |" in round_mentions.rewrite("docs/scores.md", without + "\n")  # fmt: skip
    wrong = text.replace("| minimum | training_6.0.0 |", "| exact | training_6.0.0 |")
    assert wrong != text and round_mentions.rewrite("docs/scores.md", wrong) == text
