"""submission/curvespill.py: an audit's curves kept on disk read back as they went in, in
the record's JSON; the record writes the same bytes from them as from curves held in
memory; a temporary file that cannot be written is one line and exit 2, no verdict."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mllog_check.html_report.collect import ReportData
from mllog_check.html_report.record import Spilled, write_record
from mllog_check.results.curves import EvalPoint, RunCurve, fields_json, from_fields_json
from mllog_check.submission import curvespill
from mllog_check.submission.curvespill import CurveSpill, SpillError, pack

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

_numbers = st.one_of(st.none(), st.floats(allow_nan=False), st.integers(-(2**70), 2**70))
_values = st.one_of(
    _numbers,
    st.dictionaries(st.text(max_size=8), _numbers, max_size=3),
    st.lists(_numbers, max_size=3),
)
_points = st.builds(
    EvalPoint,
    st.integers(min_value=1, max_value=10**9),
    st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    _values,
)
_curves = st.builds(
    RunCurve,
    st.text(min_size=1, max_size=30),
    st.lists(_points, max_size=6).map(tuple),
    st.one_of(st.none(), st.integers(min_value=0, max_value=2**40)),
    st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    st.integers(min_value=0, max_value=10**9),
    st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
)


@given(st.lists(st.tuples(st.text(min_size=1, max_size=20), _curves), max_size=8))
def test_curves_read_back_as_they_went_in(named: list[tuple[str, RunCurve]]) -> None:
    spill = CurveSpill()
    halves = [dict(named[: len(named) // 2]), dict(named[len(named) // 2 :])]
    for org in halves:  # one pack per org, as the workers send them
        spill.add(pack({p: ("bench", fields_json(c)) for p, c in org.items()}))
    expected = {**halves[0], **halves[1]}  # a path given again: the later one's
    assert set(spill) == set(expected) and len(spill) == len(expected)
    for path, curve in expected.items():
        assert spill.text(path) == fields_json(curve)
        assert spill.curve(path, curve.path) == _as_json(curve)
        assert spill.benchmark(path) == "bench"


def _as_json(curve: RunCurve) -> RunCurve:
    """The curve as JSON gives it back: lists for tuples inside values."""
    return from_fields_json(curve.path, json.dumps(json.loads(fields_json(curve))))


@given(_curves)
def test_the_fields_are_the_record_entry_without_its_path(curve: RunCurve) -> None:
    entry = json.loads(fields_json(curve))
    assert list(entry) == [
        "points",
        "batch_size",
        "converged_at",
        "stop_line",
        "start_ms",
        "stop_ms",
    ]
    assert entry["points"] == json.loads(
        json.dumps([[p.line, p.epoch, p.minutes, p.value] for p in curve.points])
    )
    assert from_fields_json(curve.path, fields_json(curve)) == _as_json(curve)


def test_the_record_is_the_same_from_disk_and_from_memory(tmp_path: Path) -> None:
    """The record's curves section written from the spill (one curve at a time) and
    from curves held in a dict: the same bytes."""
    curves = {
        f"Acme/results/sys/bert/result_{i}.txt": RunCurve(
            f"/base/Acme/results/sys/bert/result_{i}.txt",
            (EvalPoint(10 + i, 1.0, 2.5, 0.7 + i / 100), EvalPoint(20, None, None, {"a": 1})),
            256,
            1.5 if i % 2 else None,
            30,
            1.0e12,
            1.0e12 + 60_000,
        )
        for i in range(5)
    }
    held = ReportData(["/base"], "/base")
    held.curves = dict(curves)
    spill = CurveSpill()
    spill.add(pack({p: ("bert", fields_json(c)) for p, c in curves.items()}))
    spilled = ReportData(["/base"], "/base")
    spilled.curves = Spilled(spill, held.absolute, list(curves))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write_record(held, tmp_path / "a").read_bytes()
    two = write_record(spilled, tmp_path / "b").read_bytes()
    assert one == two
    document = json.loads(gzip.decompress(one))
    assert set(document["curves"]) == set(curves)
    assert all(document["curves"][p]["path"] == c.path for p, c in curves.items())
    # Membership never reads a curve: only an item asked for is read.
    assert "Acme/results/sys/bert/result_0.txt" in spilled.curves
    assert "elsewhere" not in spilled.curves


def test_a_temporary_file_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mllog_check.cli.group import cli

    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(curvespill.tempfile, "TemporaryFile", full)
    with pytest.raises(SpillError, match="No space left"):
        CurveSpill().add(pack({"p": ("b", fields_json(RunCurve("p", (), None, None, 0)))}))
    done = CliRunner().invoke(
        cli,
        [
            "audit",
            str(FIXTURES / "audit" / "round"),
            "--ruleset",
            "1.0.0",
            "-j",
            "1",
            "--no-cache",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert done.exit_code == 2, done.output
    assert "temporary file" in done.output and "Traceback" not in done.output
    assert "PASS" not in done.output
