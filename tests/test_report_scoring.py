"""The report looks a round's scoring data up once per result set and lets a real error
surface (docs/report.md): a round without scoring data is said, a bug is not hidden."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from mllog_check.html_report import build_page, collect
from mllog_check.results import scoring
from mllog_check.rounds import all_rounds

ROUND = FIXTURES / "audit" / "round"


def test_scoring_data_is_looked_up_once_per_result_set(monkeypatch: pytest.MonkeyPatch) -> None:
    data = collect([str(ROUND)], "1.0.0", jobs=1)
    asked: list[str] = []
    real = scoring.known_scoring

    def counting(ruleset: str) -> object:
        asked.append(ruleset)
        return real(ruleset)

    monkeypatch.setattr("mllog_check.html_report.build.known_scoring", counting)
    page = build_page(data)
    assert page.sets and len(asked) == len(page.sets)
    assert all(view.drop == 1 for view in page.sets if view.score.get("valid"))


def test_a_bug_in_the_scoring_lookup_surfaces(monkeypatch: pytest.MonkeyPatch) -> None:
    data = collect([str(ROUND)], "1.0.0", jobs=1)

    def broken(ruleset: str) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(scoring, "scoring_for", broken)  # was caught by `except Exception`
    with pytest.raises(RuntimeError, match="a bug"):
        build_page(data)


def test_a_round_without_scoring_data_is_said() -> None:
    assert scoring.known_scoring("no-such-round") is None
    # Every registered round: scoring data exactly where the registry names a file.
    for rnd in all_rounds():
        assert (scoring.known_scoring(rnd.version) is not None) == rnd.has("scoring"), rnd
