"""``check``'s memory does not grow with the number of records (docs/design.md, memory).

The rules engine keeps per key a count and the few records the rules name
(``rules/occurrences.py``), and ``check`` of a file streams the parser's records into it
(``rules/stream.py``) instead of holding them; every verdict stays the one the check
holding every record gives (``benchmarks/check_equivalence.py`` compares the corpus).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mllog_check import rounds
from mllog_check.checking import check_paths
from mllog_check.parsing import parse_file
from mllog_check.records import Record
from mllog_check.rules import detect, load_ruleset, stream
from mllog_check.rules.engine import Engine, chain

RETINANET = "v5.1/GigaComputing/results/G894-AD1_pytorch/retinanet/result_0.txt"


def repeated(path: Path, target: Path, times: int) -> int:
    """A copy of a log whose training block (first epoch or block start up to run_stop)
    is written ``times`` times: a long run of the same log. Returns the lines written."""
    lines = path.read_bytes().splitlines(keepends=True)
    start = next(i for i, x in enumerate(lines) if b'"epoch_start"' in x or b'"block_start"' in x)
    stop = next(i for i, x in enumerate(lines) if b'"run_stop"' in x)
    body = lines[:start] + lines[start:stop] * times + lines[stop:]
    target.write_bytes(b"".join(body))
    return len(body)


def _records_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Record)


def _verdicts(paths: list[str]) -> list[object]:
    run = check_paths(paths)
    return [run.exit_code, run.lines(verbose=True), run.verdicts]


def _held(path: Path) -> object:
    """The verdict of the check that holds every record (the reference)."""
    verdict, choice = detect.check_chosen(parse_file(path))
    return verdict.replace(ruleset_source=choice.source).problems


@pytest.mark.corpus
def test_the_engine_keeps_no_list_of_records(corpus: Path, tmp_path: Path) -> None:
    """Fed 1,000 times the training block of a real log, the engine holds a bounded number
    of records (it held every one), and judges as over the list."""
    log = tmp_path / "retinanet" / "result_0.txt"
    log.parent.mkdir()
    repeated(corpus / RETINANET, log, 1000)
    records = parse_file(log).records
    rules = load_ruleset("5.1.0")
    sections = chain(rules, records)
    expected = Engine(rules, str(log), sections)
    for rec in records:
        expected.feed(rec)
    want = sorted(expected.finish())
    count = len(records)
    del records, expected

    def again() -> Iterator[Record]:
        yield from parse_file(log).records

    before = _records_alive()
    engine = Engine(rules, str(log), sections)
    for rec in again():
        engine.feed(rec)
    held = _records_alive() - before
    assert count > 20_000
    assert held < 200, f"the engine holds {held} of {count} records"
    assert sorted(engine.finish()) == want


@pytest.mark.corpus
def test_check_of_a_file_streams_its_records(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check`` of a file never builds the list of its records (parse_source, which
    holds them, is not called) and gives the verdict of the check that does."""
    log = tmp_path / "v5.1" / "retinanet" / "result_0.txt"
    log.parent.mkdir(parents=True)
    repeated(corpus / RETINANET, log, 200)
    want = _held(log)
    import mllog_check.parsing as parsing

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("check held every record")

    monkeypatch.setattr(parsing, "parse_source", refused)
    run = check_paths([str(log)])
    assert run.verdicts[0].problems == want
    assert run.verdicts[0].ruleset == "training-5.1.0"


@pytest.mark.corpus
@pytest.mark.parametrize("limit", [1, 3, 40, 10_000])
def test_a_round_told_late_is_checked_as_check_always_did(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """A log whose round comes from its content, its benchmark logged last (as Google's
    v0.7-v1.0 logs do) and records held at most ``limit``: the walk guesses the round
    and the chain from what came, and checks the file again holding every record when
    the whole log says otherwise: the verdict is always the one the held check gives."""
    lines = (corpus / RETINANET).read_bytes().splitlines(keepends=True)
    named = [x for x in lines if b'"submission_benchmark"' in x]
    log = tmp_path / "result_0.txt"
    log.write_bytes(b"".join([x for x in lines if x not in named] + named))
    monkeypatch.setattr(stream, "HOLD_LIMIT", limit)
    monkeypatch.setattr(stream, "from_path", lambda *args, **kwargs: None)
    monkeypatch.setattr(rounds, "from_path", lambda *args, **kwargs: None)
    want = _verdicts_held(log)
    got = _verdicts([str(log)])
    assert got == want


def _verdicts_held(log: Path) -> list[object]:
    """check_paths as it was before streaming: every record held."""
    import mllog_check.checking as checking

    original = checking._streamed
    checking._streamed = lambda *args, **kwargs: None
    try:
        return _verdicts([str(log)])
    finally:
        checking._streamed = original


@pytest.mark.corpus
def test_every_shipped_round_streams_as_it_holds(corpus: Path) -> None:
    """One log of each round (Training and HPC): the streamed check equals the held one."""
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        log = next(iter(sorted(folder.rglob("result_*.txt"))), None)
        if log is not None:
            assert _verdicts([str(log)]) == _verdicts_held(log), log


@pytest.mark.corpus
@pytest.mark.parametrize("by_content", [False, True])
def test_mixed_syntaxes_and_odd_logs_stream_as_they_hold(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by_content: bool
) -> None:
    """Logs whose facts the walk keeps beside the engine: two syntax generations
    interleaved (counted per block), a benchmark named twice differently, time 0,
    records only; each streamed check equals the held one, by folder or by content."""
    if by_content:
        monkeypatch.setattr(stream, "from_path", lambda *args, **kwargs: None)
        monkeypatch.setattr(rounds, "from_path", lambda *args, **kwargs: None)
    v06 = next(iter(sorted((corpus / "v0.6").rglob("result_*.txt"))))
    v07 = next(iter(sorted((corpus / "v0.7").rglob("result_*.txt"))))
    old, new = v06.read_bytes().splitlines(True), v07.read_bytes().splitlines(True)
    named = next(x for x in new if b'"submission_benchmark"' in x)
    other = re.sub(rb'"value": "[^"]*"', b'"value": "ssd"', named)  # a second benchmark
    assert other != named
    folder = tmp_path / "v0.7" / "bert"
    folder.mkdir(parents=True)
    logs = {
        "result_0.txt": b"".join(x for pair in zip(new, old, strict=False) for x in pair),
        "result_1.txt": b"".join(new).replace(b'"time_ms": 1', b'"time_ms": 0', 3) + other,
        "result_2.txt": b"".join(old + new),
    }
    for name, data in logs.items():
        (folder / name).write_bytes(data)
        assert _verdicts([str(folder / name)]) == _verdicts_held(folder / name), name
