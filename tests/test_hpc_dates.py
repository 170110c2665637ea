"""MLPerf HPC rounds with publication dates: round choice, `check`'s re-published note
and the `republished` flag judge an HPC log by the HPC rounds' dates only, never by
Training's (docs/rounds.md, "Choosing the round"; docs/scores.md, `republished`).

The registry does not date the HPC rounds yet (docs/hpc.md says why), so these tests
give them dates for the length of a test and derive every expectation from the logs'
run dates against those dates. They hold for any increasing dates; the ones below are
the days announced for the HPC rounds (v0.7 on mlperf.org's results page; the others
not yet confirmed to the day, which is why the registry leaves them out).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import mllog_check
from mllog_check import rounds as d

pytestmark = pytest.mark.corpus

ASSUMED = ("2020-11-17", "2021-11-17", "2022-11-09", "2023-11-08")


def _hpc_rounds() -> list[d.Round]:
    return sorted((r for r in d.all_rounds() if r.is_hpc), key=lambda r: r.number)


@pytest.fixture
def dated(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, float]]:
    """The HPC rounds dated in version order; their publication as time_ms."""
    hpc = _hpc_rounds()
    assert len(hpc) <= len(ASSUMED)
    for rnd, day in zip(hpc, ASSUMED, strict=False):
        monkeypatch.setattr(rnd, "published", day)
    yield {r.version: float(r.published_ms or 0) for r in hpc}


def _hpc_logs(corpus: Path) -> Iterator[tuple[d.Round, Path, list[mllog_check.Record]]]:
    for rnd in _hpc_rounds():
        folder = corpus / rnd.folder
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("result_*.txt")):
            yield rnd, path, list(mllog_check.parse_file(str(path)).records)


def test_hpc_logs_take_an_hpc_round_by_the_hpc_dates(corpus: Path, dated: dict[str, float]) -> None:
    """Out of its folder, an HPC log gets the first HPC round published after its run
    (or the newest when its run is after every date): never a Training round."""
    order = list(dated)
    chosen = 0
    for _, path, records in _hpc_logs(corpus):
        found = d.from_records(records)
        assert found is not None and found.round.is_hpc, path
        when = d.run_time_ms(records)
        if found.source != "date" or when is None:
            continue
        allowed = [v for v in order if v in found.candidates]
        want = next(v for v in allowed if when < dated[v])
        assert found.round.version == want, (path, found.reason)
        chosen += 1
    assert chosen  # the dates decided some logs


def test_republished_hpc_runs_are_those_before_the_previous_hpc_results(
    corpus: Path, dated: dict[str, float]
) -> None:
    """In its round's folder, an HPC run dated before the previous HPC round's results
    gets the note and the flag; no other HPC run does."""
    from mllog_check.results.columns import republished

    order = list(dated)
    flagged = 0
    for rnd, path, records in _hpc_logs(corpus):
        index = order.index(rnd.version)
        when = d.run_time_ms(records)
        early = index > 0 and when is not None and when < dated[order[index - 1]]
        note = d.earlier_window(d.choose(str(path)), records)
        assert (note is not None) == early, (path, note)
        assert republished(rnd, records) == early, path
        if note is not None:
            day = time.strftime("%Y-%m-%d", time.gmtime(when / 1000)) if when else ""
            assert f"run dated {day}, before round {order[index - 1]}'s results" in note
            flagged += 1
    assert flagged  # the corpus re-publishes HPC runs (docs/scores.md)


def test_training_logs_ignore_the_hpc_dates(corpus: Path, dated: dict[str, float]) -> None:
    """A Training log's round and note are those the Training dates give, whatever the
    HPC rounds' dates."""
    for round_dir in sorted(corpus.glob("v*")):
        for path in sorted(round_dir.rglob("result_*.txt"))[:3]:
            records = list(mllog_check.parse_file(str(path)).records)
            found = d.from_records(records)
            assert found is None or not found.round.is_hpc, path
            note = d.earlier_window(d.choose(str(path)), records)
            assert note is None or "hpc" not in note, (path, note)
