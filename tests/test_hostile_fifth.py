"""Hostile inputs, fifth look (docs/security.md): message amplification, nesting depth,
empty orgs, staged paths above the repository, extreme values in later stages, workbook
cells.

Each test plants its fault in a copy of a published log or tree in ``tmp_path``.
"""

from __future__ import annotations

import gzip
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import test_hostile
from conftest import ROOT
from test_hostile import _v5_log, bench
from test_hostile_bounds import _limited

sys.path.insert(0, str(ROOT / "benchmarks"))
from hostile_bench import with_value  # the benchmark plants the same values

pytestmark = pytest.mark.corpus
tree = test_hostile.tree  # a copy of one published v5.0 benchmark folder and its system

# A published log whose rules relate keys (closed Llama 3.1 405B: MLC051 relations).
RELATED = "v5.1/NVIDIA/results/tyche_ngpu512_ngc25.09_nemo/llama31_405b/result_0.txt"


# -- 2. message amplification ---------------------------------------------------------


def test_a_huge_value_quoted_by_relations_gives_bounded_messages(
    corpus: Path, tmp_path: Path
) -> None:
    from mllog_check.checking import check_paths
    from mllog_check.errors import MESSAGE_LIMIT
    from mllog_check.rules.engine import SHORT_MESSAGE, TEXT_BUDGET

    huge = b'"' + b"A" * 8_000_000 + b'"'
    data = with_value((corpus / RELATED).read_bytes(), "global_batch_size", huge)
    path = tmp_path / "result_0.txt"
    path.write_bytes(data)
    problems = check_paths([str(path)], "5.1.0").verdicts[0].problems
    relations = [p for p in problems if p.rule == "MLC051"]
    assert relations and all("global_batch_size = 'AAAA" in p.message for p in relations)
    assert max(len(p.message) + len(p.text) for p in problems) <= 2 * MESSAGE_LIMIT
    assert max(len(p.message) for p in relations) < 1_000  # each quoted value is cut
    # The relation's line 1,000 times (an 8 GB report before, 4.2 GB of memory).
    lines = data.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "opt_base_learning_rate"' in ln)
    lines[index + 1 : index + 1] = [lines[index]] * 1_000
    many = tmp_path / "many" / "result_0.txt.gz"
    many.parent.mkdir()
    many.write_bytes(gzip.compress(b"\n".join(lines)))
    code, out, err = _limited(["check", "--ruleset", "5.1.0", str(many)])
    assert code == 1 and "Traceback" not in err
    assert len(out) < TEXT_BUDGET + 1_100 * (SHORT_MESSAGE + 200), len(out)


def test_every_problem_is_bounded_at_construction() -> None:
    from mllog_check.errors import MESSAGE_LIMIT
    from mllog_check.problems import Problem, Severity

    problem = Problem("a", 1, 1, "MLC051", Severity.ERROR, "x" * 10**6, text="y" * 10**6)
    assert len(problem.message) < MESSAGE_LIMIT + 100 and "characters cut" in problem.message
    assert len(problem.text) < MESSAGE_LIMIT + 100


# -- 3. power logs of many readings ---------------------------------------------------

# A published benchmark folder with power logs (one node log per run).
POWER = "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/bert"


def long_power_log(folder: Path, readings: int) -> tuple[Path, list[tuple[float, float]]]:
    """power/result_0/node_0.txt of a copied folder made to hold ``readings`` readings
    evenly over its own measurement window, each its first reading's line with another
    time and value: (the log, the readings planted)."""
    import re

    node = folder / "power" / "result_0" / "node_0.txt"
    lines = node.read_bytes().splitlines(keepends=True)
    first = next(ln for ln in lines if b'"power_reading"' in ln)
    at = {
        key: int(re.search(rb'"time_ms": (\d+)', ln).group(1))  # type: ignore[union-attr]
        for ln in lines
        for key in (b"power_measurement_start", b"power_measurement_stop")
        if key in ln
    }
    start, stop = at[b"power_measurement_start"], at[b"power_measurement_stop"]
    planted = [
        (start + (stop - start) * (i + 1) // (readings + 1), 2800.0 + i % 600)
        for i in range(readings)
    ]
    head, rest = first.split(b'"time_ms": ', 1)
    middle, tail = rest[rest.index(b",") :].split(b'"value": ', 1)
    tail = tail[tail.index(b",") :]
    with node.open("wb") as out:
        out.writelines(ln for ln in lines if b'"power_reading"' not in ln and b"_stop" not in ln)
        for t, watts in planted:
            out.write(b'%s"time_ms": %d%s"value": %r%s' % (head, t, middle, watts, tail))
        out.writelines(ln for ln in lines if b"power_measurement_stop" in ln)
    return node, [(float(t), w) for t, w in planted]


def test_a_power_log_of_many_readings_is_kept_in_columns(corpus: Path, tmp_path: Path) -> None:
    """Power logs (docs/security.md, "Bounds"): a reading cost about 1 KB (its parsed
    record and an event object); 2,000,000 readings took 1.98 GB. The log is now read as
    a stream and each event kept as a few numbers: the energy is the summarizer's formula
    all the same."""
    import tracemalloc

    from mllog_check.parsing import parse_file
    from mllog_check.power import check_benchmark_folder, power_log, read_power_log

    def read(count: int) -> tuple[Any, Path, list[tuple[float, float]], int, int]:
        folder = tmp_path / f"bert-{count}"
        shutil.copytree(corpus / POWER, folder)
        node, planted = long_power_log(folder, count)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            log = read_power_log(str(node), "node", 0)
            held, peak = (m - before for m in tracemalloc.get_traced_memory())
        finally:
            tracemalloc.stop()
        assert list(zip(log.reading_times, log.reading_watts, strict=True)) == planted
        return log, folder, planted, held, peak

    # The peak holds one block of records (a 4 MiB read); beyond it, memory grows by
    # the readings' numbers only (before: about 1 KB a reading, 290 bytes of it held).
    few, many = 32_000, 96_000
    peak_few = read(few)[4]
    log, folder, planted, held, peak = read(many)
    assert held < 64 * many, held
    assert peak - peak_few < 150 * (many - few), (peak_few, peak)
    node = folder / "power" / "result_0" / "node_0.txt"
    whole = power_log(parse_file(str(node)), "node", 0)  # the ParseResult route agrees
    columns = [(bytes(c) for c in (w.times, w.kinds, w.numbers)) for w in (whole, log)]
    assert list(columns[0]) == list(columns[1])  # as bytes: NaN stands for no number
    # The energy of run 0 is the summarizer's formula over the planted readings.
    report = check_benchmark_folder(str(folder))
    (energy,) = [e for path, e in report.energies.items() if path.endswith("result_0.txt")]
    assert log.start_ms is not None and log.stop_ms is not None
    run = parse_file(str(folder / "result_0.txt")).records
    ttt = next(r.timestamp_ms for r in run if r.key == "run_stop") - next(
        r.timestamp_ms for r in run if r.key == "run_start"
    )
    area, prev = 0.0, log.start_ms
    for t, watts in planted:
        area, prev = area + watts * (t - prev), t
    expected = log.node_eff() * area * ttt / (log.stop_ms - log.start_ms) / 1000.0
    assert energy.joules == pytest.approx(expected, rel=1e-12)
    assert not [p for p in report.problems if p.rule.startswith("MLS")]


# -- 6. values nested about 1,000 deep -------------------------------------------------

DEEP = b"[" * 990 + b"]" * 990  # orjson takes 1,024 levels, Python's json about 1,000


def _deep_log(log: bytes) -> bytes:
    """The log with a 990-deep seed value and a 990-deep field in an evaluation's metadata."""
    data = with_value(log, "seed", DEEP)
    lines = data.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "eval_accuracy"' in ln)
    lines[index] = lines[index].replace(b'"metadata": {', b'"metadata": {"deep": ' + DEEP + b", ")
    return b"\n".join(lines)


def test_a_value_nested_1000_deep_is_one_line_error_in_every_command(
    tree: Path, tmp_path: Path
) -> None:
    from mllog_check import iter_records
    from mllog_check.parsing import parse_file

    log = bench(tree) / "result_0.txt"
    log.write_bytes(_deep_log(_v5_log(tree)))
    deep = [p for p in parse_file(str(log)).problems if p.rule == "MLS021"]
    assert len(deep) == 2 and all(p.line > 0 and p.column > 1 for p in deep)
    line = log.read_bytes().split(b"\n")[deep[0].line - 1].decode()
    assert line[deep[0].column - 1] == "[" and "levels deep" in deep[0].message
    assert not [r for r in iter_records(str(log)) if r.key == "seed"]
    out = tmp_path / "out"
    commands = [
        ["check", "--ruleset", "5.0.0", str(log)],
        ["check", "--ruleset", "5.0.0", "--format", "sarif", str(log)],
        ["check", "--follow", "--until", "run_stop", "--ruleset", "5.0.0", str(log)],
        ["parse", "--format", "jsonl", str(log)],
        ["package", "--ruleset", "5.0.0", str(tree)],
        ["score", "--ruleset", "5.0.0", str(tree)],
        ["summarize", "--ruleset", "5.0.0", "--csv", str(out / "s.csv"), str(tree)],
        ["audit", "-j1", "--ruleset", "5.0.0", "--out", str(out / "audit"), str(tree.parent)],
        ["report", "-j1", "--ruleset", "5.0.0", "--out", str(out / "r.html"), str(tree.parent)],
    ]
    out.mkdir()
    for args in commands:
        code, stdout, err = _limited(args)
        assert "Traceback" not in err and "RecursionError" not in stdout + err, (args, err)
        assert code in (0, 1), (args, code, err[-2000:])
        if args[0] in ("check", "package"):
            assert "MLS021" in stdout, (args, stdout[-2000:])
    code, stdout, _err = _limited(
        ["audit", "-j1", "--ruleset", "5.0.0", "--out", str(out / "audit2"), str(tree.parent)]
    )
    assert "GigaComputing" in stdout and "org not checked" not in stdout


def test_nesting_just_below_the_bound_is_read(tree: Path) -> None:
    from mllog_check.parsing import parse_file
    from mllog_check.parsing.decoders import MAX_DEPTH

    log = bench(tree) / "result_0.txt"
    inner = MAX_DEPTH - 1  # the payload object is the first level
    log.write_bytes(with_value(_v5_log(tree), "seed", b"[" * inner + b"]" * inner))
    result = parse_file(str(log))
    assert not [p for p in result.problems if p.rule == "MLS021"]
    assert [r for r in result.records if r.key == "seed"]
    # Brackets inside strings never count as nesting.
    log.write_bytes(with_value(_v5_log(tree), "seed", b'"' + b"[{" * 500 + b'"'))
    assert not [p for p in parse_file(str(log)).problems if p.rule == "MLS021"]


# -- 10. nothing checked is never PASS; a linked org is never skipped in silence -------


def test_an_org_with_an_empty_results_folder_never_passes(tree: Path, tmp_path: Path) -> None:
    empty = tree.parent / "FlexAI"
    (empty / "results").mkdir(parents=True)
    (empty / "systems").mkdir()
    code, out, err = _limited(["package", "--ruleset", "5.0.0", str(empty)])
    assert code == 1 and "PASS FlexAI" not in out and "nothing checked" in out, out + err
    args = ["audit", "-j1", "--ruleset", "5.0.0", "--out", str(tmp_path / "a"), str(tree.parent)]
    code, out, err = _limited(args)
    verdicts = {
        ln.split()[1].rstrip(":"): ln for ln in out.splitlines() if ln.startswith(("PASS", "FAIL"))
    }
    assert verdicts["FlexAI"].startswith("FAIL") and "no result log" in verdicts["FlexAI"]
    assert "GigaComputing" in verdicts and code == 1, out + err


def _git(repo: Path, *args: str) -> None:
    import subprocess

    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    subprocess.run(command, cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repository(tree: Path, tmp_path: Path) -> Path:
    """<tmp>/outer/repo, a git repository holding a copy of the published org, with
    <tmp>/outer/results beside it (outer looks like an org to a walk that goes too far)."""
    repo = tmp_path / "outer" / "repo"
    shutil.copytree(tree, repo / "GigaComputing")
    (tmp_path / "outer" / "results").mkdir()
    (repo / "README.md").write_text("results\n", "utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "published")
    return repo


def test_staged_never_looks_above_the_repository(repository: Path) -> None:
    (repository / "README.md").write_text("changed\n", "utf-8")
    _git(repository, "add", "README.md")
    code, out, err = _limited(["package", "--staged", "--ruleset", "5.0.0"], cwd=repository)
    assert "Traceback" not in err and code == 0, err
    assert "no org folder touched" in err and not out
    # The hook run inside the org still finds it, above the working folder.
    log = bench(repository / "GigaComputing") / "result_0.txt"
    log.write_bytes(log.read_bytes() + b"\n")
    _git(repository, "add", ".")
    inside = repository / "GigaComputing" / "results"
    code, out, err = _limited(["package", "--staged", "--ruleset", "5.0.0"], cwd=inside)
    assert "Traceback" not in err and "GigaComputing (5.0.0)" in out, err


def test_staged_paths_outside_orgs_look_at_each_folder_once(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """package --staged (docs/security.md): 100,000 staged paths outside any org took
    162 s, each path's every parent asked again whether it is an org (three calls to the
    file system each). Each folder is now asked once, however many staged paths it
    holds."""
    from mllog_check.submission import staged

    folders = [repository / "notes" / f"d{i}" / "a" / "b" for i in range(4)]
    for folder in folders:
        folder.mkdir(parents=True)
        for i in range(500):
            (folder / f"f{i}.txt").write_bytes(b"x")
    log = bench(repository / "GigaComputing") / "result_0.txt"
    log.write_bytes(log.read_bytes() + b"\n")
    _git(repository, "add", ".")
    asked: dict[str, list[Path]] = {"org": [], "link": []}

    def counted(name: str, real: Any) -> Any:
        def call(folder: Path) -> bool:
            asked[name].append(folder)
            return bool(real(folder))

        return call

    monkeypatch.setattr(staged, "is_org_folder", counted("org", staged.is_org_folder))
    monkeypatch.setattr(staged, "_linked_org", counted("link", staged._linked_org))
    touched = staged.touched_orgs(repository)
    assert touched.orgs == [repository / "GigaComputing"] and not touched.links
    assert len(asked["org"]) == len(set(asked["org"])), "a folder asked twice"
    paths = 4 * 500 + 1
    below = {p for f in folders for p in f.relative_to(repository).parents}  # notes/...
    assert len(asked["org"]) <= len(below) + 4 + 10  # the org's own chain: a few more
    assert len(asked["link"]) <= paths + len(below) + 4 + 10  # each path, each folder


def test_staged_says_an_org_folder_that_is_a_link_is_not_checked(
    repository: Path, tree: Path
) -> None:
    (repository / "Linked").symlink_to(tree, target_is_directory=True)
    for stage in (False, True):  # nothing staged (every org), then the link staged
        if stage:
            _git(repository, "add", "Linked")
        args = ["package", "--staged", "--ruleset", "5.0.0"]
        code, _out, err = _limited(args, cwd=repository)
        assert "Linked: an org folder that is a link: not checked" in err, err
        assert code == 1, err


# -- 9. left from the fourth look -----------------------------------------------------


def test_the_follower_shows_no_clock_for_times_whose_difference_is_infinite(
    tree: Path, tmp_path: Path
) -> None:
    from test_hostile_bounds import _check_and_follow_agree

    lines = _v5_log(tree).decode().split("\n")
    for key, time in (("run_start", "-1.7e308"), ("run_stop", "1.7e308")):
        index = next(i for i, ln in enumerate(lines) if f'"key": "{key}"' in ln)
        lines[index] = lines[index].replace('"time_ms": ', f'"time_ms": {time}, "x": ', 1)
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines), "utf-8")
    _check_and_follow_agree(path, "5.0.0")


def test_report_with_workers_sizes_orgs_of_deep_folders(tree: Path, tmp_path: Path) -> None:
    from test_hostile_bounds import _deep

    shutil.copytree(tree, tree.parent / "Second")
    _deep(tree / "results" / "G893-SD1_pytorch", "result_0.txt")
    try:
        page = tmp_path / "report.html"
        args = ["report", "-j2", "--ruleset", "5.0.0", "--out", str(page), str(tree.parent)]
        code, _out, err = _limited(args)
        assert "Traceback" not in err and "RecursionError" not in err, err[-2000:]
        assert code in (0, 1) and page.is_file()
    finally:  # pytest's own removal recurses
        test_hostile._remove_deep(tree / "results" / "G893-SD1_pytorch" / "d")


def test_a_yaml_date_that_is_no_date_is_named(tmp_path: Path) -> None:
    from mllog_check.cost.prices import PriceCatalogError, load_catalog

    sample = (Path(__file__).resolve().parents[1] / "fixtures/prices/cloud.yaml").read_text()
    assert "date: " in sample
    catalog = tmp_path / "prices.yaml"
    lines = sample.split("\n")
    index = next(i for i, ln in enumerate(lines) if ln.strip().startswith("date: "))
    lines[index] = lines[index].split("date: ")[0] + "date: 2025-13-45"
    catalog.write_text("\n".join(lines), "utf-8")
    with pytest.raises(PriceCatalogError) as raised:
        load_catalog(catalog)
    message = str(raised.value)
    assert "2025-13-45" in message and "no date" in message and "4,300" not in message
    assert f"line {index + 1}" in message


# -- 7. the workbook takes values as the CSV shows them --------------------------------


def test_the_workbook_escapes_control_bidi_and_invisible_characters_as_the_csv(
    corpus: Path, tmp_path: Path
) -> None:
    import csv

    openpyxl = pytest.importorskip("openpyxl")
    from test_summarize import _edited_oracle, _summarize

    name = "Oracle\x07B200\u202egpu\u200b"
    org = _edited_oracle(corpus, tmp_path, "system_name", name)
    book, table = tmp_path / "t.xlsx", tmp_path / "t.csv"
    result = _summarize([str(org), "--csv", str(table), "--xlsx", str(book)], tmp_path)
    assert result.exit_code == 0, result.output
    rows = csv.DictReader(table.open(newline=""))
    shown = {r["system"] for r in rows if r["system"].startswith("Oracle")}
    assert shown == {"Oracle\\x07B200\\u202egpu\\u200b"}
    cells = {c.value for row in openpyxl.load_workbook(book)["closed"].iter_rows() for c in row}
    assert shown <= cells and name not in cells
