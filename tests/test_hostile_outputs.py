"""Hostile trees against what the tool writes and shows (docs/security.md): links
planted where outputs go, look-alike names, linked folders, messages.

Each case plants its fault in a copy of a real published v5.0 org or round in
``tmp_path``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import has_module, require

from mllog_check.outputs import OutputError, open_output, output_folder

pytestmark = pytest.mark.corpus

ROUND = "v5.0"
ORG = "GigaComputing"
HOSTILE_ORG = "x;touch PWNED;#"
SECRET = "export PATH=/usr/bin\n"


@pytest.fixture
def round_copy(corpus: Path, tmp_path: Path) -> Path:
    """<tmp>/v5.0 holding a copy of one published org, renamed like a shell command."""
    top = tmp_path / ROUND
    shutil.copytree(corpus / ROUND / ORG, top / HOSTILE_ORG)
    for path in top.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return top


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A shell start-up file outside the tree, which no output may change."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(SECRET)
    return home / ".bashrc"


def _main(args: list[str], cwd: Path) -> tuple[int, str, str]:
    code = f"from mllog_check.cli import main; main({args!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=cwd)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_report_never_writes_through_a_planted_report_html(round_copy: Path, outside: Path) -> None:
    (round_copy / "report.html").symlink_to(outside)
    code, _, err = _main(["report", "."], round_copy)
    assert code == 2
    assert "report.html: a symbolic link: not written through it" in err
    assert outside.read_text() == SECRET


def test_the_problems_side_file_is_never_written_through_a_link(
    round_copy: Path, outside: Path
) -> None:
    """The side file starts each line with the org folder's name: through a link to a
    shell start-up file, ``x;touch PWNED;#`` would have become a command."""
    from mllog_check.html_report import build_report

    (round_copy / "report_problems.txt").symlink_to(outside)
    with pytest.raises(OutputError, match=r"report_problems\.txt: a symbolic link"):
        build_report([str(round_copy)], round_copy / "report.html", inline_problems=0)
    assert outside.read_text() == SECRET
    (round_copy / "report_problems.txt").unlink()  # the same run, no link: written
    build_report([str(round_copy)], round_copy / "report.html", inline_problems=0)
    assert (round_copy / "report_problems.txt").read_text().startswith(HOSTILE_ORG)


def test_audit_tables_and_their_folder_are_never_written_through_links(
    round_copy: Path, outside: Path, tmp_path: Path
) -> None:
    repo = round_copy.parent  # a results repository root: mllog-audit/ beside v5.0/
    (repo / "mllog-audit").mkdir()
    (repo / "mllog-audit" / "runs.csv").symlink_to(outside)
    code, _, err = _main(["audit", ROUND], repo)
    assert code == 2 and "runs.csv: a symbolic link" in err
    assert outside.read_text() == SECRET
    shutil.rmtree(repo / "mllog-audit")
    (repo / "mllog-audit").symlink_to(outside.parent, target_is_directory=True)
    code, _, err = _main(["audit", ROUND], repo)
    assert code == 2 and "mllog-audit: a symbolic link: refusing to write into it" in err
    assert sorted(p.name for p in outside.parent.iterdir()) == [".bashrc"]


def test_plots_and_table_outputs_refuse_links(round_copy: Path, outside: Path) -> None:
    require(has_module("matplotlib"), "matplotlib not installed (analysis extra)")
    (round_copy / "report_plots").symlink_to(outside.parent, target_is_directory=True)
    code, _, err = _main(["report", ".", "--format", "png"], round_copy)
    assert code == 2 and "report_plots: a symbolic link" in err
    assert sorted(p.name for p in outside.parent.iterdir()) == [".bashrc"]
    (round_copy / "scores.csv").symlink_to(outside)
    code, _, err = _main(["score", ".", "--format", "csv", "-o", "scores.csv"], round_copy)
    assert code == 2 and "scores.csv: a symbolic link" in err
    assert outside.read_text() == SECRET


def test_open_output_refuses_pipes_and_hard_links_and_writes_dev_null(tmp_path: Path) -> None:
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="a named pipe"):
        open_output(fifo)  # no reader: refused at once, no hang
    shared = tmp_path / "shared.txt"
    shared.write_text(SECRET)
    os.link(shared, tmp_path / "other.txt")
    with pytest.raises(OutputError, match="other hard link"):
        open_output(tmp_path / "other.txt")
    assert shared.read_text() == SECRET
    with open_output("/dev/null") as out:  # the system's, named on the command line
        out.write("x")
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="not a folder"):
        output_folder(tmp_path / "file")


def test_report_reads_no_log_behind_a_linked_system_folder(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``results/<system>`` link leaving the org: not followed by the checks, and
    its logs never opened for the convergence charts either."""
    import mllog_check.inputs as inputs
    from mllog_check.html_report import build_report

    org = tmp_path / ROUND / ORG
    shutil.copytree(corpus / ROUND / ORG / "systems", org / "systems")
    system = "G893-SD1_pytorch"
    shutil.copytree(corpus / ROUND / ORG / "results" / system, org / "results" / system)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(corpus / ROUND / ORG / "results" / "G893-SD1_dgl", elsewhere)
    (org / "results" / "G893-SD1_dgl").symlink_to(elsewhere, target_is_directory=True)
    opened: list[Path] = []
    real_open = inputs.open_regular

    def recording(path: Path):  # type: ignore[no-untyped-def]
        opened.append(Path(path).resolve())
        return real_open(path)

    monkeypatch.setattr(inputs, "open_regular", recording)
    result = build_report([str(org)], tmp_path / "report.html", jobs=1)
    assert any(str(p).startswith(str(org)) for p in opened)  # its own logs were read
    assert [p for p in opened if elsewhere in p.parents] == []
    assert all("G893-SD1_dgl" not in r["path"] for r in result.page.data.runs)


@pytest.fixture
def repository(round_copy: Path, corpus: Path, tmp_path: Path) -> Path:
    """A results repository root: the v5.0 copy, and v4.1 as a link to a round outside."""
    (tmp_path / "v4.1").symlink_to(corpus / "v4.1", target_is_directory=True)
    return tmp_path


def test_trends_lists_what_it_did_not_read_and_fails(repository: Path) -> None:
    require(has_module("rich"), "rich not installed (analysis extra)")
    log = next((repository / ROUND).rglob("result_0.txt"))
    os.mkfifo(log.with_name("result_99.txt"))
    code, out, err = _main(["trends", ROUND, "missing"], repository)
    assert code == 2 and "bert" in out  # the rows, and the inputs left out
    assert "missing: error: MLS010 no such results folder" in err
    assert "result_99.txt: error: MLS010 not a regular file (a named pipe): not read" in err
    log.with_name("result_99.txt").unlink()
    code, out, err = _main(["trends", "."], repository)
    assert code == 1 and "bert" in out
    assert "v4.1: warning: MLS010 symbolic link to a directory: not followed" in err
    code, _, err = _main(["trends", "missing"], repository)
    assert code == 2 and "nothing read (see above)" in err and "filters" not in err


def test_audit_and_report_of_a_repository_root_say_a_linked_round_is_skipped(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("out")
    code, out, _ = _main(["audit", ".", "--out", str(elsewhere / "audit")], repository)
    assert code == 1
    assert "v4.1: warning: MLA021 a round folder that is a symbolic link: not followed" in out
    assert "v4.1" in (elsewhere / "audit" / "anomalies.csv").read_text()
    code, _, err = _main(["report", ".", "--out", str(elsewhere / "r.html")], repository)
    assert code == 1
    assert "not read: v4.1: a round folder that is a symbolic link: not followed" in err


def test_an_org_whose_check_raises_is_a_problem_not_zero_runs(
    round_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any exception in one org's check (a RecursionError on a deep tree) is an input
    error in every output; the report says so, and never blames empty filters."""
    from mllog_check.html_report import build_report
    from mllog_check.results.filters import ResultFilter
    from mllog_check.submission import audit

    def deep(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(audit, "check_package", deep)
    result = audit.run_audit(round_copy, jobs=1)
    (problem,) = result.problems
    assert (problem.rule, problem.path, problem.is_error) == ("MLS010", HOSTILE_ORG, True)
    assert "org not checked (RecursionError" in problem.message
    assert not result.clean
    report = build_report(
        [str(round_copy)], tmp_path / "r.html", jobs=1, result_filter=ResultFilter()
    )
    assert not report.clean and [p.get("rule") for p in report.inputs] == ["MLS010"]
    assert "org not checked (RecursionError" in (tmp_path / "r.html").read_text()


# Look-alike org folders: a zero-width space, a Cyrillic і, a right-to-left override.
LOOKALIKES = ("GigaComputing\u200b", "G\u0456gaComputing", "\u202eGigaComputing")
RAW = ("\u200b", "\u0456", "\u202e", "\u2028", "\x85", "\x1b")


def _org_subset(corpus: Path, org: Path) -> None:
    """One benchmark of one system of the published org, under another folder name."""
    source = corpus / ROUND / ORG
    shutil.copytree(source / "systems", org / "systems")
    bench = Path("results") / "G893-SD1_pytorch" / "bert"
    shutil.copytree(source / bench, org / bench)


@pytest.fixture
def lookalike_round(corpus: Path, tmp_path: Path) -> Path:
    top = tmp_path / "looks" / ROUND
    for name in (ORG, *LOOKALIKES):
        _org_subset(corpus, top / name)
    return top


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def test_lookalike_org_names_are_warned_and_shown_visibly(
    lookalike_round: Path, tmp_path: Path
) -> None:
    out_dir = tmp_path / "audit"
    code, out, err = _main(["audit", ".", "--out", str(out_dir)], lookalike_round)
    assert code == 1 and _raw(out + err) == []
    warned = sorted(ln for ln in out.splitlines() if " MLA045 " in ln)
    assert len(warned) == 3, out
    assert (
        "G\\u0456gaComputing: warning: MLA045 org folder G\\u0456gaComputing looks like "
        "GigaComputing" in out
    )
    assert "PASS GigaComputing\\u200b:" in out and "PASS \\u202eGigaComputing:" in out
    for table in sorted(out_dir.iterdir()):  # CSV escaped; JSON escaped, values kept
        if table.suffix in (".csv", ".json"):
            assert _raw(table.read_text("utf-8")) == [], table.name
    names = {a["org"] for a in json.loads((out_dir / "anomalies.json").read_text("utf-8"))}
    assert set(LOOKALIKES) <= names
    code, out, err = _main(["report", ".", "--out", str(tmp_path / "r.html")], lookalike_round)
    page = (tmp_path / "r.html").read_text("utf-8")
    assert _raw(page) == [] and "G\\u0456gaComputing" in page and "MLA045" in page


def test_a_lookalike_file_name_is_escaped_on_the_terminal(lookalike_round: Path) -> None:
    bench = lookalike_round / ORG / "results" / "G893-SD1_pytorch" / "bert"
    (bench / "result_0.txt").rename(bench / "result_0\u200b.txt")
    _, out, err = _main(["check", "--ruleset", "5.0.0", str(bench)], lookalike_round)
    assert "result_0\\u200b.txt" in out + err and _raw(out + err) == []


def test_plot_files_never_overwrite_each_other(corpus: Path, tmp_path: Path) -> None:
    require(has_module("matplotlib"), "matplotlib not installed (analysis extra)")
    top = tmp_path / ROUND
    for name in (ORG, ORG.upper(), "Giga Computing", "Giga-Computing"):  # one slug each
        _org_subset(corpus, top / name)
    _, out, _ = _main(["report", ".", "--format", "png"], top)
    said = int(out.split("wrote ")[-1].split(" PNG")[0])
    assert said == len(list((top / "report_plots").iterdir())) == 5


def test_the_page_and_the_problems_file_hold_no_raw_control_characters(
    corpus: Path, tmp_path: Path
) -> None:
    from mllog_check.html_report import build_report

    top = tmp_path / ROUND
    org = "x\x1b[31m\u2028\x85\tred"
    _org_subset(corpus, top / org)
    build_report([str(top)], top / "report.html", inline_problems=0)
    page = (top / "report.html").read_text("utf-8")
    side = (top / "report_problems.txt").read_text("utf-8")
    assert _raw(page) == [] and "x\\x1b[31m\\u2028\\x85" in page
    assert _raw(side) == [] and "\t" not in side
    assert side.startswith("x\\x1b[31m\\u2028\\x85\\tred/")


def test_jsonl_records_escape_line_separators(corpus: Path, tmp_path: Path) -> None:
    source = corpus / ROUND / ORG / "results" / "G893-SD1_pytorch" / "bert" / "result_0.txt"
    text = source.read_text("utf-8")
    log = tmp_path / "result_0.txt"
    log.write_text(text.replace('"value": "GigaComputing"', '"value": "Giga\u2028\x85\u200bX"'))
    done = subprocess.run(
        [sys.executable, "-c", "from mllog_check.cli import main; main()", "parse", str(log)],
        capture_output=True,
    )
    out = done.stdout.decode("utf-8")
    assert _raw(out) == []
    lines = out.split("\n")  # what a JSON-lines reader that splits on U+2028 would see too
    values = [json.loads(ln)["value"] for ln in lines if ln]
    assert "Giga\u2028\x85\u200bX" in values


def test_summarize_tables_and_workbook_refuse_links(
    corpus: Path, tmp_path: Path, outside: Path
) -> None:
    org = tmp_path / ROUND / ORG
    _org_subset(corpus, org)
    work = tmp_path / "work"
    work.mkdir()
    (work / "out.json").symlink_to(outside)
    code, _, err = _main(["summarize", str(org), "--csv", "out.csv"], work)
    assert code == 2 and "out.json: a symbolic link" in err
    assert outside.read_text() == SECRET
    require(has_module("openpyxl"), "openpyxl not installed (analysis extra)")
    (work / "out.json").unlink()
    (work / "out.xlsx").symlink_to(outside)
    code, _, err = _main(["summarize", str(org), "--csv", "out.csv", "--xlsx", "out.xlsx"], work)
    assert code == 2 and "out.xlsx: a symbolic link" in err
    assert outside.read_text() == SECRET


def test_a_deep_code_folder_does_not_lose_the_org(round_copy: Path, tmp_path: Path) -> None:
    """benchmarks/ 1,100 folders deep: os.walk raised RecursionError and the audit
    listed the org with 0 runs; now walked without recursion, every run kept."""
    from test_hostile import _remove_deep

    top = round_copy / HOSTILE_ORG / "benchmarks" / "deep"
    here = top
    here.mkdir(parents=True)
    for _ in range(1100):  # one at a time: Path.mkdir(parents=True) itself recurses
        here = here / "d"
        here.mkdir()
    (here / "train.py").write_text("")
    try:
        from mllog_check.submission.audit import run_audit

        result = run_audit(round_copy, jobs=1)
        (org,) = result.orgs
        assert org["runs"] == 65 and org["failure"] == ""
        code, _, err = _main(["package", str(round_copy / HOSTILE_ORG)], tmp_path)
        assert "Traceback" not in err and code in (0, 1)
    finally:
        _remove_deep(top)
