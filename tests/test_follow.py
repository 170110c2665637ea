"""``check --follow`` and the live check (mllog_check/follow/, docs/follow.md).

Real logs are replayed into a growing file (a writer thread) while ``check --follow``
runs in another process: each problem must be on its stderr before the writer goes on
past run_stop, ``--fail-fast`` must exit at the first error, and the report at the end
must be ``check``'s on the finished file. The library API is held equal to ``check`` on
every corpus log of v4.1-v5.1 and a sample of the other rounds.
"""

from __future__ import annotations

import gzip
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.checking import check_paths, with_cadence
from mllog_check.follow import LiveCheck
from mllog_check.follow.progress import Progress, safe
from mllog_check.follow.tail import FileTail
from mllog_check.inputs import ReadState, Source, open_binary, read_chunks
from mllog_check.parsing import parse_bytes, parse_file
from mllog_check.records import ParseResult
from mllog_check.rounds import parse_round
from mllog_check.rules import LogVerdict, check_log

MAIN = "import sys; from mllog_check.cli import main; main(sys.argv[1:])"
RETINANET = "v5.1/GigaComputing/results/G894-AD1_pytorch/retinanet/result_0.txt"
WAIT_S = 20.0  # generous: the machine is shared; a pass takes well under a second


def _checked(result: ParseResult, ruleset: str) -> LogVerdict:
    """check's verdict on a parsed log: the rules', and the cadence of one log (MLR060)
    that check adds (checking.with_cadence)."""
    return with_cadence(result, check_log(result, ruleset), parse_round(ruleset).folder, False)


def _content(path: Path) -> bytes:
    return b"".join(read_chunks(open_binary(Source(str(path), path)), ReadState()))


def _feed_randomly(live: LiveCheck, data: bytes, seed: int) -> None:
    rng = random.Random(seed)
    i = 0
    while i < len(data):
        step = rng.choice((1, 7, 100, 4096, 65536))
        live.feed(data[i : i + step])
        i += step


# --- the library API equals check ---------------------------------------------------------


def _corpus_logs(corpus: Path) -> list[Path]:
    logs: list[Path] = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        found = sorted(folder.rglob("result_*.txt*"))
        whole = folder.name in ("v4.1", "v5.0", "v5.1")
        logs += found if whole else found[::9]  # every log of three rounds, a sample of others
    return logs


@pytest.mark.corpus
def test_live_check_equals_check_on_the_corpus(corpus: Path) -> None:
    logs = _corpus_logs(corpus)
    assert len(logs) > 500
    for n, path in enumerate(logs):
        want = check_paths([str(path)]).verdicts[0]
        live = LiveCheck(str(path))
        _feed_randomly(live, _content(path), n)
        assert live.finish() == want, path
        assert not live.stale, path


@pytest.mark.corpus
def test_live_check_equals_check_on_mutated_logs(corpus: Path) -> None:
    """Hostile input (bit flips, lines lost, shuffled or renamed, bad types and times, rank
    prefixes, CR and CRLF, truncation) fed in random pieces: check's verdict still."""
    from fuzzing import corpus_logs, mutate_log

    logs = [(path, ruleset) for path, ruleset in corpus_logs(corpus) if ruleset is not None]
    compared = 0
    for i in range(300):
        rng = random.Random(f"follow:{i}")
        path, ruleset = logs[rng.randrange(len(logs))]
        _, data = mutate_log(path.read_bytes(), rng)
        if data[:2] == b"\x1f\x8b":
            continue  # a growing log is read as text (docs/follow.md)
        parsed = parse_bytes(data, "result_0.txt")
        # check's verdict: the rules', and the one-log cadence (MLR060) check adds
        want = _checked(parsed, ruleset)
        live = LiveCheck("result_0.txt", ruleset)
        _feed_randomly(live, data, i)
        assert live.finish().replace(ruleset_source="") == want, (i, path)
        compared += 1
    assert compared > 250


@pytest.mark.parametrize("fixture", sorted((FIXTURES / "check").glob("*.txt")), ids=str)
def test_live_check_equals_check_on_fixtures(fixture: Path) -> None:
    want = _checked(parse_file(fixture), "1.0.0")
    live = LiveCheck(str(fixture), "1.0.0")
    _feed_randomly(live, fixture.read_bytes(), 1)
    assert live.finish().replace(ruleset_source="") == want


def test_lines_fed_as_text_equal_check() -> None:
    fixture = FIXTURES / "check" / "closed_dlrm.fail.MLC020.txt"
    live = LiveCheck(str(fixture), "1.0.0")
    found = [p for line in fixture.read_text().splitlines() for p in live.feed_line(line)]
    verdict = live.finish()
    assert verdict.replace(ruleset_source="") == _checked(parse_file(fixture), "1.0.0")
    assert [p.rule for p in found] == ["MLC020"]  # on its line, before the end


def test_records_fed_one_by_one_equal_check() -> None:
    fixture = FIXTURES / "check" / "closed_bert.fail.MLC040.txt"
    result = parse_file(fixture)
    live = LiveCheck(str(fixture), "1.0.0")
    found = [p for rec in result.records for p in live.feed_record(rec)]
    verdict = live.finish()
    assert verdict.replace(ruleset_source="") == _checked(result, "1.0.0")
    assert not verdict.passed and [p.rule for p in verdict.problems if p.is_error] == ["MLC040"]
    assert found == []  # the quality target is judged at the end, not before


def test_judging_the_end_early_changes_nothing() -> None:
    fixture = FIXTURES / "check" / "closed_bert.fail.MLC040.txt"
    live = LiveCheck(str(fixture), "1.0.0")
    live.feed(fixture.read_bytes())
    early = live.judge_end()
    assert [p.rule for p in early] == ["MLC040"]
    assert live.judge_end() == early
    # The evaluation cadence (MLR060) is judged on the whole run, at the end only.
    assert [p for p in live.finish().problems if p.rule != "MLR060"] == sorted(early)


def test_a_partial_last_line_is_read_at_the_end() -> None:
    fixture = FIXTURES / "check" / "closed_bert.pass.txt"
    data = fixture.read_bytes().rstrip(b"\n")
    live = LiveCheck(str(fixture), "1.0.0")
    live.feed(data)
    assert live.finish().replace(ruleset_source="") == _checked(parse_file(fixture), "1.0.0")


def test_a_byte_order_mark_split_across_feeds_is_dropped(tmp_path: Path) -> None:
    fixture = FIXTURES / "check" / "closed_bert.pass.txt"
    data = b"\xef\xbb\xbf" + fixture.read_bytes()
    live = LiveCheck(str(fixture), "1.0.0")
    for i in range(0, len(data), 2):
        live.feed(data[i : i + 2])
    assert live.finish().passed


def test_compressed_input_is_an_input_error_not_a_pass() -> None:
    fixture = FIXTURES / "check" / "closed_bert.pass.txt"
    live = LiveCheck(str(fixture), "1.0.0")
    live.feed(gzip.compress(fixture.read_bytes()))
    verdict = live.finish()
    assert not verdict.passed and live.scanner.result.input_error
    assert any("gzip" in p.message for p in verdict.problems)


def test_records_are_not_kept_by_the_parser() -> None:
    fixture = FIXTURES / "check" / "closed_bert.pass.txt"
    live = LiveCheck(str(fixture), "1.0.0")
    live.feed(fixture.read_bytes())
    assert live.scanner.result.records == [] and live.records > 10


def _benchmark_named_last() -> list[bytes]:
    lines = (FIXTURES / "check" / "closed_bert.pass.txt").read_bytes().splitlines(keepends=True)
    return lines[1:] + lines[:1]  # as Google's v0.7-v1.0 TPU logs: submission_* at the end


def test_records_are_held_until_the_benchmark_is_named() -> None:
    lines = _benchmark_named_last()
    live = LiveCheck("closed_bert.txt", "1.0.0")
    found = [p for line in lines[:-1] for p in live.feed(line)]
    assert found == [] and live.engine is None and len(live.held) == len(lines) - 1
    live.feed(lines[-1])
    assert live.engine is not None and live.held == []
    verdict = live.finish()
    assert verdict.passed and not live.stale
    want = _checked(parse_bytes(b"".join(lines), "closed_bert.txt"), "1.0.0")
    assert verdict.replace(ruleset_source="") == want


def test_a_chain_forced_before_it_is_known_is_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    import mllog_check.follow.live as live_module

    monkeypatch.setattr(live_module, "HOLD_LIMIT", 5)
    live = LiveCheck("closed_bert.txt", "1.0.0")
    for line in _benchmark_named_last():
        live.feed(line)
    assert [s.name for s in live.engine.sections] == ["common", "closed"]  # type: ignore[union-attr]
    live.finish()
    assert live.stale  # check --follow then re-checks the finished file


def test_a_stale_follow_reports_checks_reading_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    import mllog_check.follow.live as live_module
    from mllog_check.cli.follow import run_follow

    monkeypatch.setattr(live_module, "HOLD_LIMIT", 5)
    log = tmp_path / "result_0.txt"
    log.write_bytes(b"".join(_benchmark_named_last()))
    out, err = io.StringIO(), io.StringIO()
    code = run_follow((str(log),), "1.0.0", False, "json", False, False, "run_stop", None, out, err)
    assert "re-checked whole" in err.getvalue()
    want = _check(log, "--ruleset", "1.0.0", "--format", "json")
    assert (code, out.getvalue()) == want and code == 0


def test_hyperparameters_missing_at_run_start_are_noted_once() -> None:
    text = (FIXTURES / "check" / "closed_bert.pass.txt").read_text()
    lines = [line for line in text.splitlines(True) if '"opt_epsilon"' not in line]
    start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    live = LiveCheck("closed_bert.txt", "1.0.0")
    live.feed("".join(lines[:start]).encode())
    assert live.notes == []
    live.feed("".join(lines[start:] + lines[start : start + 1]).encode())  # run_start twice
    assert len(live.notes) == 1 and live.notes[0].endswith("later): opt_epsilon")


# --- tail -F ------------------------------------------------------------------------------


def test_tail_follows_growth_truncation_and_replacement(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    tail = FileTail(str(path))
    assert tail.poll().waiting
    path.write_bytes(b"one\n")
    assert tail.poll().data == b"one\n"
    assert tail.poll().data == b""
    with path.open("ab") as f:
        f.write(b"two\n")
    assert tail.poll().data == b"two\n"
    path.write_bytes(b"3\n")  # truncated and rewritten (shorter than what was read)
    got = tail.poll()
    assert got.restarted and got.data == b"3\n"
    with path.open("ab") as f:
        f.write(b"last of the old file\n")
    path.rename(tmp_path / "run.log.1")  # rotation: the old file's end is read first
    path.write_bytes(b"new\n")
    assert tail.poll().data == b"last of the old file\n"
    got = tail.poll()
    assert got.restarted and got.data == b"new\n"
    tail.close()


def test_progress_line_is_safe_for_a_terminal() -> None:
    assert safe("eval \x1b[31mred\x1b[0m") == "eval \\x1b[31mred\\x1b[0m"
    assert safe("plain 0.72 ≥ ok") == "plain 0.72 ≥ ok"


# --- the command, on a log written while it runs -------------------------------------------


class Follow:
    """``check --follow`` in another process; its stderr lines gathered as they come."""

    def __init__(self, args: list[str], stdin: int | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", MAIN, "check", "--follow", *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert self.proc.stderr is not None
        threading.Thread(target=self._read, args=(self.proc.stderr,), daemon=True).start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.put(line)

    def wait_for(self, pattern: str) -> str:
        """The first stderr line matching ``pattern``, waiting for it."""
        deadline = time.monotonic() + WAIT_S
        for line in self.seen:
            if re.search(pattern, line):
                return line
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            self.seen.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no {pattern!r} on stderr: {''.join(self.seen)}")

    def end(self) -> tuple[int, str]:
        out, _ = self.proc.communicate(timeout=WAIT_S)
        return self.proc.returncode, out


def _check(path: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "check", *args, str(path)], capture_output=True, text=True
    )
    return done.returncode, done.stdout


def _lines(corpus: Path) -> list[bytes]:
    return (corpus / RETINANET).read_bytes().splitlines(keepends=True)


def _index(lines: list[bytes], key: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"key": "{key}"'.encode() in line)


def _write(path: Path, lines: list[bytes]) -> None:
    with path.open("ab") as f:
        f.write(b"".join(lines))


def _growing(tmp_path: Path) -> Path:
    folder = tmp_path / "v5.1"  # the round folder tells the round, as the corpus paths do
    folder.mkdir()
    return folder / "run.log"


@pytest.mark.corpus
def test_forbidden_hyperparameter_is_reported_before_the_run_starts(
    corpus: Path, tmp_path: Path
) -> None:
    lines = _lines(corpus)
    bad = _index(lines, "opt_weight_decay")
    lines[bad] = lines[bad].replace(b'"value": 0,', b'"value": 0.0001,')
    path = _growing(tmp_path)
    path.touch()
    follow = Follow(["--until", "run_stop", str(path)])
    _write(path, lines[: bad + 1])  # the writer stops here until the problem is out
    line = follow.wait_for(r"MLC020 .*opt_weight_decay")
    assert f"run.log:{bad + 1}:" in line
    _write(path, lines[bad + 1 :])
    code, out = follow.end()
    assert (code, out) == _check(path)
    assert code == 1


@pytest.mark.corpus
def test_missing_init_stop_is_certain_at_run_start_and_fail_fast_exits(
    corpus: Path, tmp_path: Path
) -> None:
    lines = _lines(corpus)
    del lines[_index(lines, "init_stop")]
    start = _index(lines, "run_start")
    path = _growing(tmp_path)
    follow = Follow(["--fail-fast", str(path)])  # started before the file exists
    follow.wait_for("waiting for the file")
    _write(path, lines[: start + 1])
    code, out = follow.end()  # it exits by itself: the rest (run_stop) is never written
    assert code == 1
    assert "MLC030" in out and f"run.log:{start + 1}:" in out and "FAIL" in out
    assert "run_stop" not in path.read_text()


@pytest.mark.corpus
def test_quality_target_is_judged_at_run_stop(corpus: Path, tmp_path: Path) -> None:
    lines = _lines(corpus)
    evals = [i for i, line in enumerate(lines) if b'"key": "eval_accuracy"' in line]
    lines[evals[-1]] = re.sub(rb'"value": [0-9.]+', b'"value": 0.3', lines[evals[-1]])
    stop = _index(lines, "run_stop")
    path = _growing(tmp_path)
    path.touch()
    follow = Follow([str(path)])  # no --until: the end is judged at run_stop, then goes on
    _write(path, lines[: stop + 1])
    follow.wait_for("at run_stop, if the log ended now")
    follow.wait_for(r"MLC040 .*last is 0\.3")
    _write(path, lines[stop + 1 :])
    follow.proc.terminate()  # SIGTERM: the input ends; the report is check's
    code, out = follow.end()
    assert (code, out) == _check(path)


@pytest.mark.corpus
def test_truncated_run_from_a_pipe_fails_as_check_does(corpus: Path, tmp_path: Path) -> None:
    lines = _lines(corpus)
    cut = b"".join(lines[: _index(lines, "run_stop")])  # the run died before run_stop
    read, write = os.pipe()
    follow = Follow(["--ruleset", "5.1", "--format", "json", "-"], stdin=read)
    os.close(read)
    os.write(write, cut)
    os.close(write)
    code, out = follow.end()
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "check", "--ruleset", "5.1", "--format", "json", "-"],
        input=cut,
        capture_output=True,
    )
    assert (code, out) == (done.returncode, done.stdout.decode())
    assert code == 1 and "run_stop is missing" in out


@pytest.mark.corpus
def test_a_log_started_over_is_checked_from_its_new_start(corpus: Path, tmp_path: Path) -> None:
    lines = _lines(corpus)
    path = _growing(tmp_path)
    first = lines[:]
    first[_index(first, "opt_weight_decay")] = first[_index(first, "opt_weight_decay")].replace(
        b'"value": 0,', b'"value": 0.5,'
    )
    _write(path, first[: _index(first, "run_start")])
    follow = Follow(["--until", "run_stop", str(path)])
    follow.wait_for("MLC020")
    path.write_bytes(lines[0])  # the job restarted and overwrote its log
    follow.wait_for("started over")
    _write(path, lines[1:])
    code, out = follow.end()
    assert (code, out) == _check(path) == (0, out)
    assert "pass" in out


@pytest.mark.corpus
def test_status_line_compares_with_the_reference_runs(corpus: Path) -> None:
    progress = Progress("5.1.0")
    for rec in parse_file(corpus / RETINANET).records:
        progress.feed(rec)
    line = progress.line()
    assert line.startswith("retinanet | epoch ")
    assert "(target reached)" in line and "run_stop success" in line
    assert re.search(r"converged at [0-9.]+ epochs; reference mean [0-9.]+ ± [0-9.]+ epochs", line)
    assert "RCP Pass if every run did so" in line


# block_stop counts 2,048,000 samples after the last evaluation's 1,536,000.
DIFFUSION = "v5.0/GigaComputing/results/G893-SD1_pytorch/stable_diffusion/result_0.txt"
LLAMA_8B = "v5.1/Oracle/results/1xBM.GPU.B200.8/llama31_8b/result_0.txt"  # 172,032 samples
_EVALUATIONS = {"eval_start", "eval_stop", "eval_accuracy", "aggregated_eval_accuracy"}


def _replay(path: Path, version: str) -> tuple[Progress, list[str]]:
    """A corpus log fed record by record; the status line after each record."""
    progress, lines = Progress(version), []
    for rec in parse_file(path).records:
        progress.feed(rec)
        lines.append(progress.line())
    return progress, lines


@pytest.mark.corpus
@pytest.mark.parametrize(("log", "version", "shown"), [
    (DIFFUSION, "5.0.0", "samples 1.54M"),
    (LLAMA_8B, "5.1.0", "samples 172k"),
])  # fmt: skip
def test_status_line_samples_are_the_evaluations(
    corpus: Path, log: str, version: str, shown: str
) -> None:
    _, lines = _replay(corpus / log, version)
    assert f"{shown} |" in lines[-1]
    # After every record the samples shown are the last evaluation's, never a block's.
    expected = None
    for rec, line in zip(parse_file(corpus / log).records, lines, strict=True):
        count = rec.metadata.get("samples_count") if isinstance(rec.metadata, dict) else None
        if rec.key in _EVALUATIONS and count is not None:
            expected = count
        found = re.search(r"samples ([0-9.]+)([kMG]?)", line)
        if expected is None:
            assert found is None
            continue
        assert found is not None
        scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[found.group(2)]
        assert abs(float(found.group(1)) * scale - expected) <= 0.005 * expected


@pytest.mark.parametrize(("count", "shown"), [
    (178_859, "179k"), (10_000, "10k"), (9_999, "9999"), (4_500, "4500"),
    (2_663_811, "2.66M"), (37.41, "37.41"),
])  # fmt: skip
def test_counts_from_ten_thousand_are_thousands(count: float, shown: str) -> None:
    progress = Progress()
    progress.samples = count
    assert progress.line() == f"samples {shown}"


@pytest.mark.corpus
def test_no_rcp_verdict_when_no_evaluation_reached_the_target(corpus: Path) -> None:
    lines = (corpus / RETINANET).read_bytes().splitlines(keepends=True)
    low = [re.sub(rb'"value": [0-9.]+', b'"value": 0.3', line)
           if b'"key": "eval_accuracy"' in line else line for line in lines]  # fmt: skip
    progress = Progress("5.1.0")
    for rec in parse_bytes(b"".join(low)).records:
        progress.feed(rec)
    line = progress.line()
    assert "run_stop success" in line and "eval 0.3 (target " in line
    assert "converged at" not in line and "RCP Pass" not in line
    assert "not converged: no RCP comparison; reference mean " in line


def test_control_characters_from_the_log_do_not_reach_stderr(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_bytes(b':::MLLOG {"key": "x\x1b]0;owned\x07", "value": \n')
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "check", "--follow", "--ruleset", "5.1", "-"],
        input=log.read_bytes(),
        capture_output=True,
    )
    assert done.returncode == 1 and b"MLS" in done.stderr
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr


def test_follow_options_need_follow_and_one_log(tmp_path: Path) -> None:
    fixture = FIXTURES / "check" / "closed_bert.pass.txt"
    assert _check(fixture, "--fail-fast")[0] == 2
    assert _check(fixture, "--until", "run_stop")[0] == 2
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "check", "--follow", str(fixture), str(fixture)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "one log" in done.stderr
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "check", "--follow", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "not a directory" in done.stderr
