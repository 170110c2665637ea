"""The parser on small hand-written logs of each generation."""

from __future__ import annotations

from mllog_check import Generation, parse_text

MLLOG = (
    ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "event_type": "POINT_IN_TIME", '
    '"key": "cache_clear", "value": true, "metadata": {"file": "x.py", "lineno": 4}}'
)


def test_mllog_record_fields_and_position() -> None:
    result = parse_text("noise\n0: " + MLLOG + "\n")
    assert result.marker_lines == 1 and not result.problems
    (rec,) = result.records
    assert (rec.line, rec.column, rec.generation) == (2, 4, Generation.MLLOG)
    assert (rec.key, rec.value, rec.timestamp_ms) == ("cache_clear", True, 1621532919228)
    assert rec.metadata == {"file": "x.py", "lineno": 4}


def test_v06_record() -> None:
    text = (
        ':::MLL 1560881700.860 submission_org: {"metadata": {"lineno": 0, "file": "N/A"}, '
        '"value": "NVIDIA"}\n'
    )
    (rec,) = parse_text(text).records
    assert rec.generation is Generation.MLL
    assert (rec.key, rec.value, rec.timestamp_ms) == ("submission_org", "NVIDIA", 1560881700860.0)


def test_v05_record_with_and_without_value() -> None:
    text = (
        ":::MLPv0.5.0 resnet 1543785258.928567886 (benchmark_cnn.py:1552) eval_offset: 0\n"
        "[1,0]<stdout>::::MLPv0.5.0 resnet 1543785259.5 (<string>:1) run_clear_caches\n"
        ":::MLPv0.5.0 resnet 1543785260 (x.py:3) opt_name: adam\n"
    )
    result = parse_text(text)
    assert [r.key for r in result.records] == ["eval_offset", "run_clear_caches", "opt_name"]
    assert [r.value for r in result.records] == [0, None, "adam"]
    assert result.records[0].namespace == "resnet"
    assert result.records[0].metadata == {"file": "benchmark_cnn.py", "lineno": 1552}
    assert result.records[1].column == len("[1,0]<stdout>:") + 1


def test_last_marker_on_a_line_wins_as_in_the_official_parser() -> None:
    line = "echo ':::MLLOG junk' && " + MLLOG
    (rec,) = parse_text(line + "\n").records
    assert rec.column == line.index(":::MLLOG {") + 1


def test_cr_separated_segments_are_lines_of_their_own() -> None:
    result = parse_text("progress 10%\r" + MLLOG + "\r" + MLLOG + "\r\n")
    assert len(result.records) == 2
    assert [r.column for r in result.records] == [len("progress 10%\r") + 1, 13 + len(MLLOG) + 2]


def test_error_gives_line_column_reason_and_text() -> None:
    result = parse_text('ok\n0: :::MLLOG {"key": "a", "time_ms": 1, "value": [1,\n')
    assert not result.records
    (problem,) = result.problems
    assert (problem.line, problem.rule) == (2, "MLS002")
    assert "truncated" in problem.message
    assert problem.column == len('0: :::MLLOG {"key": "a", "time_ms": 1, "value": [1,') + 1
    assert problem.text.startswith(":::MLLOG")


def test_infinity_is_accepted_with_a_note() -> None:
    text = ':::MLLOG {"key": "clip", "time_ms": 1, "value": Infinity, "metadata": {}}\n'
    result = parse_text(text)
    assert result.records[0].value == float("inf")
    assert [p.rule for p in result.problems] == ["MLS007"]


def test_count_invariant_on_mixed_input() -> None:
    text = "\n".join(
        [
            MLLOG,
            ":::MLLOG {",
            ":::MLL nonsense",
            ":::MLPv0.5.0 x",
            "plain",
            MLLOG.replace("1621", "x"),
        ]
    )
    result = parse_text(text)
    assert result.marker_lines == 5
    assert len(result.records) + result.line_error_count == result.marker_lines


def test_older_markers_inside_an_mllog_payload_do_not_split_the_record() -> None:
    # The official v0.7+ parser strips up to the last ":::MLLOG " (with the space) only.
    line = MLLOG.replace('"x.py"', '":::MLL 1 a: {} and :::MLLOG{ and :::MLPv0.5.0"')
    (rec,) = parse_text("0: " + line + "\n").records
    assert rec.column == 4 and rec.metadata["file"].startswith(":::MLL 1")


def test_mllog_marker_without_space_is_a_bad_envelope() -> None:
    result = parse_text(':::MLLOG{"key": "a", "time_ms": 1, "value": 1, "metadata": {}}\n')
    assert [p.rule for p in result.problems] == ["MLS001"]
    assert "space" in result.problems[0].message
