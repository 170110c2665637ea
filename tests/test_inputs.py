"""The bad-input catalogue: each odd input gives a clear Problem with its place, the
right exit code of ``mllog-check parse`` and never a traceback."""

from __future__ import annotations

import codecs
import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from mllog_check import parse_bytes, parse_file
from mllog_check.cli import cli

RECORD = (
    ':::MLLOG {"namespace": "", "time_ms": 1621532919228, "event_type": "POINT_IN_TIME", '
    '"key": "cache_clear", "value": "cafe", "metadata": {"file": "x.py", "lineno": 4}}'
)
LOG = "start\n" + RECORD + "\n0: " + RECORD.replace("cache_clear", "init_start") + "\n"


def run(*args: str, stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(cli, ["parse", *args], input=stdin)
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def invariant(path: str) -> None:
    result = parse_file(path)
    assert len(result.records) + result.line_error_count == result.marker_lines


def test_undecodable_bytes_in_a_marker_line_are_read_as_latin1(tmp_path: Path) -> None:
    path = write(
        tmp_path, "latin.txt", ("0: " + RECORD.replace("cafe", "caf\xe9")).encode("latin-1")
    )
    out = run("-q", path)
    assert out.exit_code == 0
    column = 4 + RECORD.index("cafe") + 3  # the byte 0xe9
    assert f"{path}:1:{column}: warning: MLS008 byte 0xe9 is not UTF-8" in out.stderr
    assert parse_file(path).records[0].value == "caf\xe9"


def test_nul_byte_inside_a_marker_line_is_an_error_at_its_column(tmp_path: Path) -> None:
    path = write(tmp_path, "nul.txt", RECORD.replace("cafe", "ca\x00fe").encode() + b"\n")
    out = run("-q", path)
    assert out.exit_code == 1
    column = RECORD.index("cafe") + 3
    assert f"{path}:1:{column}: error: MLS002 a NUL byte inside the JSON payload" in out.stderr
    invariant(path)


def test_nul_bytes_before_the_marker_are_only_prefix(tmp_path: Path) -> None:
    path = write(tmp_path, "nulprefix.txt", b"\x00\x00junk " + RECORD.encode() + b"\n")
    assert run("-q", path).exit_code == 0
    assert parse_file(path).records[0].column == 8


def test_binary_file_without_marker_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "model.bin", bytes(range(256)) * 64)
    out = run("-q", path)
    assert out.exit_code == 0
    assert f"{path}: warning: MLS011 binary data (NUL bytes) and no MLPerf marker" in out.stderr


def test_crlf_line_ends(tmp_path: Path) -> None:
    path = write(tmp_path, "crlf.txt", LOG.replace("\n", "\r\n").encode())
    out = run("-q", path)
    assert (out.exit_code, out.stderr) == (0, "")
    result = parse_file(path)
    assert [(r.line, r.column, r.value) for r in result.records] == [(2, 1, "cafe"), (3, 4, "cafe")]


def test_utf8_bom(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.txt", codecs.BOM_UTF8 + RECORD.encode() + b"\n")
    out = run("-q", path)
    assert (out.exit_code, out.stderr) == (0, "")
    assert parse_file(path).records[0].column == 1


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom_is_decoded_with_a_warning(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path, f"{encoding}.txt", ("\ufeff" + LOG).encode(encoding))
    out = run("-q", path)
    assert out.exit_code == 0
    name = encoding.upper()
    assert out.stderr == f"{path}: warning: MLS013 the file is {name} (byte-order mark); " + (
        "decoded as such [text-encoding]\n"
    )
    assert [(r.line, r.key) for r in parse_file(path).records] == [
        (2, "cache_clear"),
        (3, "init_start"),
    ]


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.txt", b"")
    out = run("-q", path)
    assert out.exit_code == 0
    assert out.stderr == f"{path}: warning: MLS011 the file is empty [no-records]\n"


def test_huge_marker_line(tmp_path: Path) -> None:
    from mllog_check.parsing.scanner import MAX_LINE

    # Up to MAX_LINE bytes (longer than any read chunk), a line is parsed.
    value = "x" * (MAX_LINE - len(RECORD))
    path = write(tmp_path, "huge.txt", (RECORD.replace("cafe", value) + "\n" + RECORD).encode())
    assert run("-q", path).exit_code == 0
    result = parse_file(path)
    assert [len(r.value) for r in result.records] == [len(value), 4]
    assert result.records[1].line == 2
    # Beyond it (tens of MB), the line is read past: one line error, the next line parsed.
    value = "x" * 30_000_000
    path = write(tmp_path, "huger.txt", (RECORD.replace("cafe", value) + "\n" + RECORD).encode())
    assert run("-q", path).exit_code == 1
    result = parse_file(path)
    assert [r.line for r in result.records] == [2]
    assert [(p.rule, p.line) for p in result.problems] == [("MLS014", 1)]
    assert len(result.records) + result.line_error_count == result.marker_lines == 2


def test_huge_noise_line_before_a_record(tmp_path: Path) -> None:
    path = write(tmp_path, "noise.txt", b"y" * 30_000_000 + b"\n" + RECORD.encode() + b"\n")
    assert run("-q", path).exit_code == 0
    (record,) = parse_file(path).records
    assert (record.line, record.column) == (2, 1)


def test_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "missing.txt")
    out = run("-q", path)
    assert out.exit_code == 2
    assert out.stderr == f"{path}: error: MLS010 no such file or directory [input-error]\n"


def test_directory_where_a_file_is_expected(tmp_path: Path) -> None:
    result = parse_file(tmp_path)
    assert result.input_error and result.records == []
    (problem,) = result.problems
    assert (problem.rule, problem.message) == ("MLS010", "is a directory, not a log file")


def test_directory_is_walked_in_sorted_order(tmp_path: Path) -> None:
    for name in ["b/2.txt", "a/z.txt", "a/10.txt", "c.txt"]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(RECORD + "\n")
    out = run("--format", "csv", str(tmp_path))
    assert out.exit_code == 0
    paths = [line.split(",")[0] for line in out.stdout.splitlines()[1:]]
    assert paths == [str(tmp_path / n) for n in ["a/10.txt", "a/z.txt", "b/2.txt", "c.txt"]]


def test_unreadable_file_permission_denied(tmp_path: Path) -> None:
    path = write(tmp_path, "secret.txt", RECORD.encode())
    os.chmod(path, 0)
    if os.access(path, os.R_OK):
        pytest.skip("running as root: chmod 000 does not stop root from reading")
    out = run("-q", path)
    assert out.exit_code == 2
    assert f"{path}: error: MLS010 permission denied" in out.stderr


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
def test_unreadable_file_read_error() -> None:
    # /proc/self/mem opens but fails at offset 0 with EIO, even for root: a real
    # read error, the case chmod 000 cannot produce when the tests run as root.
    out = run("-q", "/proc/self/mem")
    assert out.exit_code == 2
    assert (
        out.stderr == "/proc/self/mem: error: MLS010 read error: Input/output error [input-error]\n"
    )


def test_gzip_file_is_read_by_content(tmp_path: Path) -> None:
    path = write(tmp_path, "log.txt.gz", gzip.compress(LOG.encode()))
    plain = write(tmp_path, "log.txt", LOG.encode())
    out = run("-q", path)
    assert (out.exit_code, out.stderr) == (0, "")
    assert [r[1:] for r in parse_file(path).records] == [r[1:] for r in parse_file(plain).records]


def test_truncated_gzip_keeps_records_before_the_break(tmp_path: Path) -> None:
    data = gzip.compress((LOG * 20000).encode(), mtime=0)
    path = write(tmp_path, "broken.gz", data[: len(data) // 2])
    out = run("-q", path)
    assert out.exit_code == 2
    first = out.stderr.splitlines()[0]
    assert first.startswith(f"{path}: error: MLS010 broken gzip stream")
    assert "records before the break are kept; the failure came after line" in first
    result = parse_file(path)
    assert 1000 < len(result.records) < 40000
    invariant(path)


def test_not_gzip_after_the_magic_number(tmp_path: Path) -> None:
    path = write(tmp_path, "fake.gz", b"\x1f\x8b" + b"not really gzip\n" * 10)
    out = run("-q", path)
    assert out.exit_code == 2
    assert f"{path}: error: MLS010 broken gzip stream" in out.stderr


def test_truncated_last_line(tmp_path: Path) -> None:
    path = write(tmp_path, "cut.txt", (LOG + RECORD[:70]).encode())
    out = run("-q", path)
    assert out.exit_code == 1
    assert f"{path}:4:68: error: MLS002 truncated JSON: unterminated string" in out.stderr
    assert len(parse_file(path).records) == 2
    invariant(path)


def test_stdin_dash_through_click() -> None:
    out = run("--format", "csv", "-", stdin=LOG.encode())
    assert out.exit_code == 0
    rows = out.stdout.splitlines()
    assert rows[1].startswith("<stdin>,2,1,mllog,") and rows[2].startswith("<stdin>,3,4,")


def test_stdin_dash_through_a_real_pipe() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from mllog_check.cli import main; main()", "parse", "-q", "-"],
        input=(LOG + ":::MLLOG {\n").encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.decode().startswith("<stdin>:4:11: error: MLS002 truncated JSON")


def test_symlink_leaving_a_walked_tree_is_reported_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(RECORD.replace("cache_clear", "secret") + "\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "in.txt").write_text(RECORD + "\n")
    (tree / "leaves.txt").symlink_to(outside)
    (tree / "stays.txt").symlink_to(tree / "in.txt")
    out = run("--format", "csv", str(tree))
    assert out.exit_code == 2
    assert out.stderr == (
        f"{tree}/leaves.txt: error: MLS010 symbolic link leaves the checked tree: "
        "not followed [input-error]\n"
    )
    assert "secret" not in out.stdout
    assert [row.split(",")[0] for row in out.stdout.splitlines()[1:]] == [
        f"{tree}/in.txt",
        f"{tree}/stays.txt",
    ]


_MARKERS = [b":::MLLOG ", b":::MLL ", b":::MLPv0.5.0 ", b"\r", b"\n", b"\x00", b"{", b'"']


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, b"\x1f\x8b"]),
    st.lists(st.one_of(st.binary(max_size=40), st.sampled_from(_MARKERS)), max_size=30),
)
def test_arbitrary_bytes_never_raise_and_keep_the_invariant(
    head: bytes, parts: list[bytes]
) -> None:
    result = parse_bytes(head + b"".join(parts))
    assert len(result.records) + result.line_error_count == result.marker_lines
    assert all(p.rule.startswith("MLS") for p in result.problems)
