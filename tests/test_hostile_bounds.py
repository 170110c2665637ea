"""Hostile inputs, fourth look (docs/security.md): bounds of check --follow, rule problems,
gzip members, YAML strings, project settings; extreme values that must not raise.

Each test plants its fault in a copy of a published v5.0 log or tree (``test_hostile.tree``).
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest
import test_hostile
from test_hostile import _v5_log, bench

pytestmark = pytest.mark.corpus
tree = test_hostile.tree  # a copy of one published v5.0 benchmark folder and its system


# -- gzip members --------------------------------------------------------------------


def test_many_gzip_members_in_one_chunk_read_in_linear_time(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file

    log = _v5_log(tree)
    half = len(log) // 2
    path = tmp_path / "result_0.txt.gz"
    # 100,000 empty members (2 MB) between the log's two halves: each member's end made
    # zlib copy the rest of the 4 MiB chunk (15 s, quadratic; 200,000 took a minute).
    empty = gzip.compress(b"")
    path.write_bytes(gzip.compress(log[:half]) + empty * 100_000 + gzip.compress(log[half:]))
    start = time.perf_counter()
    result = parse_file(str(path))
    assert time.perf_counter() - start < 5
    assert not result.input_error
    plain = parse_file(str(bench(tree) / "result_0.txt"))
    assert [r[1:] for r in result.records] == [r[1:] for r in plain.records]


# -- YAML: long strings behind anchors ------------------------------------------------


def test_a_long_string_repeated_by_aliases_is_refused_with_a_short_message(
    tmp_path: Path,
) -> None:
    from mllog_check.cost.prices import PriceCatalogError, load_catalog

    sample = (Path(__file__).resolve().parents[1] / "fixtures/prices/sample.yaml").read_text()
    # A 64 KB description under an anchor, a list of 300 aliases of it as "includes",
    # and four of those lists as aliases: 1,500 nodes, 98 MB of text expanded (the
    # schema's message quoted it whole; a 96 KB catalog took 2.27 GB).
    entry = (
        f"  - system: IPU-POD16\n    description: &s {'x' * 65_536}\n"
        f"    includes: &l [{', '.join(['*s'] * 300)}]\n    aliases: [*l, *l, *l, *l]\n"
        "    price: 1\n    currency: USD\n    kind: list\n    source: test\n"
        "    date: 2021-07-01\n"
    )
    catalog = tmp_path / "prices.yaml"
    catalog.write_text(sample.replace("prices:\n", "prices:\n" + entry, 1), "utf-8")
    assert len(catalog.read_bytes()) < 100_000
    with pytest.raises(PriceCatalogError, match="characters of text") as caught:
        load_catalog(catalog)
    assert len(str(caught.value)) < 5_000


def test_error_messages_are_bounded() -> None:
    from mllog_check.errors import MESSAGE_LIMIT, MllogCheckError

    error = MllogCheckError("bad value: " + "y" * 10_000_000)
    assert len(str(error)) < MESSAGE_LIMIT + 100 and "characters cut" in str(error)
    assert str(MllogCheckError("short")) == "short"


# -- project settings and the registry: bounded reads of regular files -----------------


def _check_and_follow_agree(path: Path, ruleset: str) -> None:
    """``check --follow --until run_stop`` of a finished file: no traceback, and the
    exit code ``check`` gives (docs/follow.md)."""
    checked, _out, _err = _limited(["check", "--ruleset", ruleset, str(path)])
    args = ["check", "--follow", "--until", "run_stop", "--ruleset", ruleset, str(path)]
    followed, _out, err = _limited(args)
    assert "Traceback" not in err and followed == checked, err[-2000:]


def _limited(
    args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """The console entry point in a fresh interpreter limited to 1 GiB of address space
    and 60 s (a hang or a whole-file read fails the test, not the machine)."""
    import os
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    code = f"import sys; from mllog_check.cli import main; main({args!r})"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        preexec_fn=limit,
        timeout=60,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_a_huge_pyproject_above_the_working_folder_is_not_read_whole(
    tree: Path, tmp_path: Path
) -> None:
    work = tmp_path / "project" / "sub"
    work.mkdir(parents=True)
    with (tmp_path / "project" / "pyproject.toml").open("wb") as sparse:
        sparse.truncate(2 << 30)  # 2 GB, sparse (read whole: 4.2 GB)
    log = bench(tree) / "result_0.txt"
    code, _out, err = _limited(["check", str(log)], cwd=work)
    assert code == 2 and "pyproject.toml: cannot read: larger than" in err
    assert "Traceback" not in err


def test_a_pyproject_nested_1000_deep_is_a_usage_error(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("x = " + "[" * 1000 + "]" * 1000 + "\n", "utf-8")
    log = bench(tree) / "result_0.txt"
    code, _out, err = _limited(["check", str(log)], cwd=tmp_path)
    assert code == 2 and "nested too deeply" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_registry_that_is_not_a_regular_file_is_refused(
    tree: Path, tmp_path: Path, kind: str
) -> None:
    import os

    registry = tmp_path / "rounds.yaml"
    if kind == "fifo":
        os.mkfifo(registry)
    else:
        registry = Path("/dev/zero")
    log = bench(tree) / "result_0.txt"
    code, _out, err = _limited(["check", str(log)], env={"MLLOG_CHECK_ROUNDS": str(registry)})
    assert code == 2 and "not a regular file" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("field", "wrong"),
    [
        ("olympic_drop:\n", "olympic_drop: [1]\nunused_drop:\n"),
        ("runs: 5", "runs: five"),
        ("  rules: rules/training-{version}.yaml", "  rules: 5"),
        ("without_rcp: [minigo]", "without_rcp: 5"),
    ],
)
def test_a_registry_with_fields_of_the_wrong_type_is_refused(
    tree: Path, tmp_path: Path, field: str, wrong: str
) -> None:
    shipped = Path(__file__).resolve().parents[1] / "schemas" / "rounds.yaml"
    text = shipped.read_text("utf-8")
    assert field in text
    registry = tmp_path / "rounds.yaml"
    registry.write_text(text.replace(field, wrong, 1), "utf-8")
    log = bench(tree) / "result_0.txt"
    code, _out, err = _limited(["check", str(log)], env={"MLLOG_CHECK_ROUNDS": str(registry)})
    assert code == 2 and "wrong type" in err and "Traceback" not in err


# -- check --follow: the line bound ---------------------------------------------------


def _with_long_line(log: bytes, size: int) -> tuple[bytes, int]:
    """The log with its submission_org value made ``size`` bytes long; the line's number."""
    lines = log.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "submission_org"' in ln)
    lines[index] = lines[index].replace(b'"GigaComputing"', b'"' + b"G" * size + b'"')
    return b"\n".join(lines), index + 1


def _follow_whole(path: Path, data: bytes, piece: int) -> list[tuple[str, int, str]]:
    from mllog_check.follow import LiveCheck

    live = LiveCheck(str(path), "5.0.0")
    for start in range(0, len(data), piece):
        live.feed(data[start : start + piece])
    return [(p.rule, p.line, p.message) for p in live.finish().problems]


@pytest.mark.parametrize("ending", [b"\n", b""])
def test_follow_and_check_give_the_same_problems_for_a_long_line(
    tree: Path, tmp_path: Path, ending: bytes
) -> None:
    from mllog_check.checking import check_paths
    from mllog_check.parsing.scanner import MAX_LINE

    data, line = _with_long_line(_v5_log(tree).rstrip(b"\n"), MAX_LINE + 1000)
    # The long line last, with and without its line feed (a writer mid-line).
    lines = data.split(b"\n")
    data = b"\n".join([*lines[: line - 1], *lines[line:], lines[line - 1]]) + ending
    path = tmp_path / "result_0.txt"
    path.write_bytes(data)
    run = check_paths([str(path)], "5.0.0")
    checked = [(p.rule, p.line, p.message) for p in run.verdicts[0].problems]
    assert any(rule == "MLS014" for rule, _, _ in checked)
    assert _follow_whole(path, data, 1 << 20) == checked


def test_follow_keeps_no_more_than_the_line_bound_of_a_line_without_a_line_feed(
    tree: Path, tmp_path: Path
) -> None:
    import tracemalloc

    from mllog_check.follow import LiveCheck

    live = LiveCheck(str(tmp_path / "result_0.txt"), "5.0.0")
    live.feed(_v5_log(tree))
    piece = b"x" * (1 << 20)
    tracemalloc.start()
    try:
        live.feed(b":::MLLOG {")
        for _ in range(48):  # 48 MiB without a line feed (256 MiB took 1.35 GB)
            live.feed(piece)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 << 20  # the 8 MiB bound, plus a chunk (was 2 copies of all of it)
    too_long = [p for p in live.finish().problems if p.rule == "MLS014"]
    assert len(too_long) == 1


# -- rule problems per log: capped and counted ------------------------------------------


def _bad_evaluations(log: bytes, count: int) -> bytes:
    """The log with ``count`` copies of its eval_accuracy line, the value made text,
    before its run_stop (a 3 MB gzip of such lines gave 2,000,000 problems)."""
    lines = log.split(b"\n")
    evaluation = next(ln for ln in lines if b'"key": "eval_accuracy"' in ln)
    value = evaluation.index(b'"value": ') + len(b'"value": ')
    bad = evaluation[:value] + b'"bad"' + evaluation[evaluation.index(b",", value) :]
    stop = next(i for i, ln in enumerate(lines) if b'"key": "run_stop"' in ln)
    return b"\n".join([*lines[:stop], *[bad] * count, *lines[stop:]])


def test_rule_problems_are_capped_and_counted_in_check_and_follow(
    tree: Path, tmp_path: Path
) -> None:
    from mllog_check.checking import check_paths
    from mllog_check.parsing.scanner import PROBLEM_LIMIT

    data = _bad_evaluations(_v5_log(tree), 30_000)
    path = tmp_path / "result_0.txt.gz"
    path.write_bytes(gzip.compress(data))
    verdict = check_paths([str(path)], "5.0.0").verdicts[0]
    assert not verdict.passed
    assert len(verdict.problems) <= PROBLEM_LIMIT + 10
    summary = [p for p in verdict.problems if p.rule == "MLS019"]
    assert len(summary) == 1 and summary[0].is_error
    listed = sum(p.rule == "MLC020" for p in verdict.problems)
    assert f"{30_000 - listed:,} more compliance problem(s)" in summary[0].message
    plain = tmp_path / "plain" / "result_0.txt"
    plain.parent.mkdir()
    plain.write_bytes(data)
    followed = _follow_whole(plain, data, 1 << 16)
    checked = check_paths([str(plain)], "5.0.0").verdicts[0].problems
    assert followed == [(p.rule, p.line, p.message) for p in checked]
    code, out, _err = test_hostile._main(["check", "--ruleset", "5.0.0", str(path)])
    assert code == 1 and out.count("\n") < PROBLEM_LIMIT + 20


def test_omitted_warnings_are_errors_with_strict() -> None:
    from collections import Counter

    from mllog_check.problems import Severity
    from mllog_check.rules.engine import omitted_problem, promote

    warnings = omitted_problem("result_0.txt", "compliance", Counter({Severity.WARNING: 5}))
    assert not warnings.is_error and "5 more compliance problem(s)" in warnings.message
    assert [p.is_error for p in promote([warnings])] == [True]  # --strict: they were errors
    errors = omitted_problem("result_0.txt", "power", Counter({Severity.ERROR: 2}))
    assert errors.is_error and "(2 error(s) among them)" in errors.message


def _power_copy(corpus: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a published v5.0 benchmark folder with power logs, and its first node
    log (writable)."""
    import shutil

    source = corpus / "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/retinanet"
    folder = tmp_path / "retinanet"
    shutil.copytree(source, folder)
    node = sorted(folder.glob("power/result_*/node_*.txt"))[0]
    node.chmod(0o644)
    return folder, node


def test_power_problems_are_capped_and_counted(corpus: Path, tmp_path: Path) -> None:

    from mllog_check.parsing.scanner import PROBLEM_LIMIT
    from mllog_check.power import check_benchmark_folder

    folder, node = _power_copy(corpus, tmp_path)
    text = node.read_text("utf-8")
    line = next(ln for ln in text.splitlines() if '"key": "power_reading"' in ln)
    value = line.split('"value": ')[1].split(",")[0]
    bad = line.replace(f'"value": {value}', '"value": "bad"')
    node.write_text(text.replace(line, "\n".join([line] + [bad] * 5000)), "utf-8")
    report = check_benchmark_folder(str(folder))
    mine = [p for p in report.problems if p.path == str(node)]
    assert sum(p.rule == "MLE008" for p in mine) == PROBLEM_LIMIT
    summary = [p for p in mine if p.rule == "MLS019"]
    assert len(summary) == 1 and "4,000 more power problem(s)" in summary[0].message


# -- check --follow: a log rewritten behind the follower --------------------------------


def _follow_while(path: Path, steps: list[bytes | str]) -> tuple[int, str]:
    """``check --follow --until run_stop`` of ``path`` while steps happen to it: bytes
    appended, "rewrite" (the division changed in place, same size) or "replace" (the file
    truncated and written again, the division changed, in one go between two polls).

    The first step waits for the follower's first status line: it is printed once the
    follower has read the file's first chunk (the header, where the division is), so a
    rewrite comes behind it however slow the machine; the later steps follow at once."""
    import subprocess
    import sys
    import threading

    code = (
        "from mllog_check.cli import main; "
        f"main(['check', '--follow', '--until', 'run_stop', '--ruleset', '5.0.0', {str(path)!r}])"
    )
    follower = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    lines: list[str] = []
    started = threading.Event()

    def read_stderr() -> None:
        assert follower.stderr is not None
        for raw in follower.stderr:
            lines.append(raw.decode())
            if raw.startswith(b"status: "):
                started.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert started.wait(timeout=120), "no status line from the follower: " + "".join(lines)
        for step in steps:
            data = path.read_bytes()
            if step == "rewrite":
                with path.open("r+b") as log:
                    log.seek(data.index(b'"value": "closed"'))
                    log.write(b'"value": "clozed"')
            elif step == "replace":
                path.write_bytes(data.replace(b'"value": "closed"', b'"value": "clozed"', 1))
            else:
                assert isinstance(step, bytes)
                with path.open("ab") as log:
                    log.write(step)
        follower.wait(timeout=120)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    reader.join(timeout=60)
    return follower.returncode, "".join(lines)


@pytest.mark.parametrize("change", ["rewrite", "replace"])
def test_follow_does_not_pass_a_log_rewritten_behind_it(
    tree: Path, tmp_path: Path, change: str
) -> None:
    from mllog_check.checking import check_paths

    log = _v5_log(tree)
    stop = log.index(b'"key": "run_stop"')
    stop = log.rindex(b"\n", 0, stop) + 1
    path = tmp_path / "result_0.txt"
    path.write_bytes(log[:stop])
    code, err = _follow_while(path, [change, log[stop:]])
    assert not check_paths([str(path)], "5.0.0").verdicts[0].passed  # check fails it
    assert code == 1, err
    assert "MLS020" in err


def test_follow_of_an_unchanged_growing_log_is_not_rechecked(tree: Path, tmp_path: Path) -> None:
    log = _v5_log(tree)
    stop = log.index(b'"key": "run_stop"')
    stop = log.rindex(b"\n", 0, stop) + 1
    path = tmp_path / "result_0.txt"
    path.write_bytes(log[:stop])
    code, err = _follow_while(path, [log[stop:]])
    assert code == 0 and "MLS020" not in err


# -- scaling factors and conversion efficiencies in the range real trees use ------------


@pytest.mark.parametrize("factor", ["1e-300", "5e-324", "1e300", "0.5"])
def test_a_scaling_factor_outside_the_published_range_gives_no_score(
    tree: Path, factor: str
) -> None:
    (bench(tree) / "scaling.json").write_text(f'{{"scaling_factor": {factor}}}', "utf-8")
    result, problems = test_hostile.score(tree)
    assert result.minutes is None and not result.valid
    assert "MLR032" in test_hostile.rules(problems)


def test_a_published_scaling_factor_still_scales(tree: Path) -> None:
    (bench(tree) / "scaling.json").write_text('{"scaling_factor": 1.1666666666666667}', "utf-8")
    result, problems = test_hostile.score(tree)
    assert result.minutes is not None and "MLR032" not in test_hostile.rules(problems)


@pytest.mark.parametrize("eff", ["1e-300", "0.1", "1.5"])
def test_a_conversion_efficiency_outside_the_range_gives_no_energy(
    corpus: Path, tmp_path: Path, eff: str
) -> None:

    from mllog_check.power import check_benchmark_folder

    folder, node = _power_copy(corpus, tmp_path)
    text = node.read_text("utf-8")
    assert '"key": "conversion_eff", "value": 0.94' in text
    node.write_text(
        text.replace('"conversion_eff", "value": 0.94', f'"conversion_eff", "value": {eff}')
    )
    report = check_benchmark_folder(str(folder))
    assert any(p.rule == "MLE026" and p.path == str(node) for p in report.problems)
    run = [r for r in report.energies if Path(r).stem == node.parent.name.removesuffix(".txt")]
    energies = [report.energies[r].joules for r in run]
    assert energies == [None], report.energies


# -- values check passes must not crash check --follow ----------------------------------

_HUGE = "9" * 400  # an integer beyond floats (check reads it; the status line divided it)


@pytest.mark.parametrize(
    ("key", "old", "new"),
    [
        ("eval_accuracy", '"samples_count": 1536', f'"samples_count": {_HUGE}'),
        ("eval_accuracy", '"samples_count": 1536', f'"samples_count": 1536, "epoch_num": {_HUGE}'),
        ("global_batch_size", '"value": 8', f'"value": {_HUGE}'),
        ("run_start", '"time_ms": ', '"time_ms": Infinity, "x": '),
        ("run_stop", '"time_ms": ', '"time_ms": Infinity, "x": '),
    ],
)
def test_values_check_passes_do_not_crash_the_follower(
    tree: Path, tmp_path: Path, key: str, old: str, new: str
) -> None:
    lines = _v5_log(tree).decode().split("\n")
    index = next(i for i, ln in enumerate(lines) if f'"key": "{key}"' in ln and old in ln)
    lines[index] = lines[index].replace(old, new, 1)
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines), "utf-8")
    _check_and_follow_agree(path, "5.0.0")


# -- counts in system descriptions -------------------------------------------------------


@pytest.mark.parametrize("nodes", ['"1e19"', "1e308", "1e19"])
@pytest.mark.parametrize(
    "command",
    [
        ["score", "--ruleset", "5.0.0", "--format", "json"],
        ["trends", "--ruleset", "5.0.0", "--format", "json"],  # the copy names no round
        ["cost", "--ruleset", "5.0.0", "--prices", "fixtures/prices/sample.csv"],
        ["package", "--ruleset", "5.0.0", "--format", "json"],
    ],
    ids=lambda c: c[0],
)
def test_a_node_count_beyond_any_system_is_not_a_count(
    tree: Path, nodes: str, command: list[str]
) -> None:
    desc = tree / "systems" / "G893-SD1_pytorch.json"
    text = desc.read_text("utf-8")
    assert '"number_of_nodes": "1"' in text
    desc.write_text(text.replace('"number_of_nodes": "1"', f'"number_of_nodes": {nodes}'))
    target = tree if command[0] == "package" else tree.parent
    root = Path(__file__).resolve().parents[1]
    code, _out, err = _limited([*command, str(target)], cwd=root)
    assert "Traceback" not in err and code in (0, 1), err[-2000:]


def test_a_node_count_beyond_int64_in_weak_scaling_logs_is_written_to_parquet(
    corpus: Path, tmp_path: Path
) -> None:
    import shutil

    import pyarrow.parquet as pq

    system = "perlmutter_10x128x4_ngc21.09_mxnet"
    source = corpus / "hpc-v1.0" / "LBNL"
    org = tmp_path / "tree" / "LBNL"
    shutil.copytree(source / "results" / system / "weak", org / "results" / system / "weak")
    (org / "systems").mkdir()
    shutil.copyfile(source / "systems" / f"{system}.json", org / "systems" / f"{system}.json")
    huge = str(2**70)
    for log in org.rglob("result_*.txt"):
        log.chmod(0o644)
        text = log.read_text("utf-8")
        log.write_text(
            text.replace(
                '"key": "number_of_nodes", "value": 128',
                f'"key": "number_of_nodes", "value": {huge}',
            )
        )
    out = tmp_path / "scores.parquet"
    code, _out, err = _limited(
        [
            "score",
            "--ruleset",
            "hpc-1.0.0",
            "--format",
            "parquet",
            "--output",
            str(out),
            str(org.parent),
        ]
    )
    assert "Traceback" not in err, err[-2000:]
    table = pq.read_table(out).to_pylist()
    assert code in (0, 1) and [row["instance_scale"] for row in table] == [str(2**70 * 4)]


def test_an_evaluation_of_1e308_is_charted_in_the_report(tree: Path, tmp_path: Path) -> None:
    log = bench(tree) / "result_0.txt"
    lines = log.read_text("utf-8").split("\n")
    index = next(i for i, ln in enumerate(lines) if '"key": "eval_accuracy"' in ln)
    value = lines[index].split('"value": ')[1].split(",")[0]
    lines[index] = lines[index].replace(f'"value": {value}', '"value": 1.79e308')
    log.write_text("\n".join(lines), "utf-8")
    page = tmp_path / "report.html"
    code, _out, err = _limited(
        ["report", "--ruleset", "5.0.0", "--out", str(page), str(tree.parent)]
    )
    assert "Traceback" not in err and code in (0, 1) and page.is_file(), err[-2000:]


def test_a_price_csv_field_over_128_kib_is_a_usage_error(tree: Path, tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "fixtures" / "prices" / "sample.csv"
    lines = sample.read_text("utf-8").split("\n")
    header = lines[0].split(",")
    row = lines[1].split(",")
    row[header.index("source")] = '"' + "s" * 140_000 + '"'
    catalog = tmp_path / "prices.csv"
    catalog.write_text("\n".join([lines[0], ",".join(row), *lines[2:]]), "utf-8")
    code, _out, err = _limited(
        ["cost", "--ruleset", "5.0.0", "--prices", str(catalog), str(tree.parent)]
    )
    assert code == 2 and "field larger than field limit" in err and "Traceback" not in err


# -- deep folders and outputs that cannot be written -----------------------------------


def _deep(base: Path, name: str, depth: int = 1100) -> None:
    here = base
    here.mkdir(exist_ok=True)
    for _ in range(depth):
        here = here / "d"
        here.mkdir()
    (here / name).write_text("x\n", "utf-8")


def test_package_and_report_walk_deep_folders(tree: Path, tmp_path: Path) -> None:
    _deep(tree / "benchmarks", "train.py")
    _deep(tree / "results" / "G893-SD1_pytorch", "result_0.txt")
    try:
        code, _out, err = _limited(["package", "--ruleset", "5.0.0", str(tree)])
        assert "Traceback" not in err and code in (0, 1), err[-2000:]
        page = tmp_path / "report.html"
        args = ["report", "--ruleset", "5.0.0", "--out", str(page), str(tree)]
        code, _out, err = _limited(args)
        assert "Traceback" not in err and "RecursionError" not in err, err[-2000:]
        assert code in (0, 1) and page.is_file()
    finally:  # pytest's own removal recurses
        test_hostile._remove_deep(tree / "benchmarks" / "d")
        test_hostile._remove_deep(tree / "results" / "G893-SD1_pytorch" / "d")


@pytest.mark.parametrize(
    "command",
    [
        ["hparams", "-o", "{bad}/h.csv"],
        ["score", "--ruleset", "5.0.0", "-o", "{bad}/s.csv"],
        ["report", "--ruleset", "5.0.0", "--out", "{tmp}/r.html", "--plots", "{bad}/plots"],
    ],
    ids=lambda c: c[0],
)
def test_an_output_that_cannot_be_written_is_refused_before_the_run(
    tree: Path, tmp_path: Path, command: list[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", "utf-8")
    bad = blocker / "below"  # a folder that cannot exist: its parent is a file
    args = [a.format(bad=bad, tmp=tmp_path) for a in command]
    code, out, err = _limited([*args, str(tree.parent)])
    assert code == 2 and str(bad) in err and "Traceback" not in err, err[-2000:]
    assert not (tmp_path / "r.html").exists() and not out  # nothing was run


def test_trends_of_zero_minute_results_do_not_divide_by_zero(tree: Path, tmp_path: Path) -> None:
    import re
    import shutil

    root = tmp_path / "repo"
    for version in ("v5.0", "v5.1"):
        shutil.copytree(tree, root / version / tree.name)
    for log in (root / "v5.1").rglob("result_*.txt"):
        text = log.read_text("utf-8")
        start = re.search(
            r'"time_ms": (\d+), "event_type": "INTERVAL_START", "key": "run_start"', text
        )
        assert start is not None
        stop = r'"time_ms": \d+(, "event_type": "INTERVAL_END", "key": "run_stop")'
        log.write_text(re.sub(stop, rf'"time_ms": {start.group(1)}\1', text), "utf-8")
    code, out, err = _limited(["trends", "--format", "json", str(root)])
    assert "Traceback" not in err and code in (0, 1), err[-2000:]
    assert "v5.1" in out  # the 0-minute round is a row


@pytest.mark.parametrize(
    "seeds",
    [('"\\ud800x"', "7"), ("[1, [2]]", "7"), (str(2**70), "[1, 2]"), ("[1, 2]", "[3, 4.5]")],
    ids=["surrogate", "nested-list", "huge-and-list", "int-and-float"],
)
def test_score_parquet_takes_any_seeds_a_log_may_hold(
    tree: Path, tmp_path: Path, seeds: tuple[str, str]
) -> None:
    import pyarrow.parquet as pq

    logs = sorted(bench(tree).glob("result_*.txt"))
    for log, seed in zip(logs, seeds, strict=False):
        text = log.read_text("utf-8")
        value = text.split('"key": "seed", "value": ')[1].split(",")[0]
        log.write_text(
            text.replace(f'"key": "seed", "value": {value}', f'"key": "seed", "value": {seed}')
        )
    for runs in ([], ["--runs"]):
        out = tmp_path / f"scores{len(runs)}.parquet"
        args = ["score", "--ruleset", "5.0.0", "--format", "parquet", *runs, "-o", str(out)]
        code, _out, err = _limited([*args, str(tree.parent)])
        assert "Traceback" not in err and code in (0, 1), err[-2000:]
        assert pq.read_table(out).num_rows >= 1


def test_an_evaluation_beyond_floats_is_judged_against_the_target(
    corpus: Path, tmp_path: Path
) -> None:
    # The long fuzz run's case: the last evaluation of a v1.0 BERT log an integer beyond
    # floats; check --follow's status line judged it with float() and raised.
    source = corpus / "v1.0/Google/results/tpu-v4-6912-TF/bert/result_8.txt"
    lines = source.read_text("utf-8").split("\n")
    index = max(i for i, ln in enumerate(lines) if '"key": "eval_accuracy"' in ln)
    value = lines[index].split('"value": ')[1].split(",")[0]
    lines[index] = lines[index].replace(f'"value": {value}', f'"value": {_HUGE}')
    path = tmp_path / "result_8.txt"
    path.write_text("\n".join(lines), "utf-8")
    _check_and_follow_agree(path, "1.0.0")


def test_a_convergence_count_near_the_float_maximum_is_compared_with_the_rcp(
    corpus: Path, tmp_path: Path
) -> None:
    # The long fuzz run's case: a v4.1 DLRM log converging at epoch 1.7e308; the RCP
    # mean of the status line (and of score) overflowed.
    source = corpus / "v4.1/GigaComputing/results/G593-ZD1_hugectr/dlrm_dcnv2/result_8.txt"
    text = source.read_text("utf-8")
    import re

    text = re.sub(r'"epoch_num": [0-9.]+', '"epoch_num": 1.7e308', text)
    path = tmp_path / "result_8.txt"
    path.write_text(text, "utf-8")
    _check_and_follow_agree(path, "4.1.0")
