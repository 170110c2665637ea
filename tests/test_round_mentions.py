"""The docs' mentions of the latest round and lists of rounds follow the registry."""

from __future__ import annotations

import pytest
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


def test_the_scores_table_follows_the_registrys_benchmarks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A benchmark added to the newest round shows in its row, the notes column stays."""
    from conftest import ROOT

    from mllog_check import rounds
    from mllog_check.rounds import Benchmark

    text = (ROOT / "docs" / "scores.md").read_text(encoding="utf-8")
    newest = [r for r in rounds.all_rounds() if r.has("scoring") and not r.is_hpc][-1]
    (row,) = [line for line in text.splitlines() if line.startswith(f"| {newest.folder} |")]
    toy = Benchmark("zzbench", 7, 1, (), True, ("closed", "open"))
    grown = newest.replace(benchmarks={**(newest.benchmarks or {}), "zzbench": toy})
    everyone = tuple(grown if r is newest else r for r in rounds.all_rounds())
    monkeypatch.setattr(round_mentions, "all_rounds", lambda: everyone)
    (new_row,) = [
        line
        for line in round_mentions.rewrite("docs/scores.md", text).splitlines()
        if line.startswith(f"| {newest.folder} |")
    ]
    assert "zzbench 7" in new_row and "zzbench" not in row
    assert new_row.rsplit(" | ", 1)[1] == row.rsplit(" | ", 1)[1]  # the notes, as written


def test_the_docs_list_the_registrys_output_formats(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format added to a registry shows in every list of formats the docs give."""
    from conftest import ROOT

    from mllog_check import reporters
    from mllog_check.reporters import tables

    extra = reporters.ProblemFormat("toyfmt", "x:y", label="Toy")
    monkeypatch.setattr(reporters, "FORMATS", {**reporters.FORMATS, "toyfmt": extra})
    toy_table = tables.TableFormat(tables.write_csv, "toy", (tables.SCORE,), label="ToyTable")
    monkeypatch.setattr(tables, "FORMATS", {**tables.FORMATS, "toy": toy_table})
    for name in ("README.md", "docs/design.md", "docs/follow.md", "docs/package.md",
                 "docs/audit.md"):  # fmt: skip
        text = (ROOT / name).read_text(encoding="utf-8")
        assert round_mentions.rewrite(name, text) != text, name
    readme = round_mentions.rewrite("README.md", (ROOT / "README.md").read_text())
    assert "SARIF, GitHub annotations, Toy) of check" in readme
    assert "[--format text|json|junit|sarif|github|toyfmt]" in readme
    assert "(table, CSV, JSON, Parquet, ToyTable), a registry" in readme


def test_the_scores_table_does_not_depend_on_the_registrys_read_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The registry read from YAML keeps the file's order, its prepared copy sorts the
    names: the table is the same either way (scripts/new_round.py reads both)."""
    from conftest import ROOT

    from mllog_check import rounds

    text = (ROOT / "docs" / "scores.md").read_text(encoding="utf-8")
    flipped = tuple(
        r.replace(benchmarks=dict(reversed(list(r.benchmarks.items())))) if r.benchmarks else r
        for r in rounds.all_rounds()
    )
    monkeypatch.setattr(round_mentions, "all_rounds", lambda: flipped)
    assert round_mentions.rewrite("docs/scores.md", text) == text
