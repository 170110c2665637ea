"""--select, --ignore and --preview on every command that reports problems (selection.py;
docs/design.md, "Selection and preview"): codes checked against the rule table, no
official error ever deselected, preview rules shown only when asked, and the stable
checks beyond the official tools documented with their firings (docs/differences.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check import catalog
from mllog_check.cli import cli
from mllog_check.problems import Severity
from mllog_check.selection import Selection, SelectionError, selection

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import beyond_firings

GOOD = str(FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt")
BAD = str(FIXTURES / "check" / "closed_resnet_lars.fail.MLC020.txt")
ACME = str(FIXTURES / "package" / "clean" / "Acme")


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_the_longest_prefix_decides_and_an_equal_ignore_wins() -> None:
    shown = Selection(select=("MLR06",), ignore=("MLR060",))
    assert shown.chosen("MLR068") and not shown.chosen("MLR060")
    assert not shown.chosen("MLC101")  # not selected
    assert Selection().chosen("MLC101")  # no select: every code
    assert not Selection(select=("MLC1",), ignore=("MLC1",)).chosen("MLC101")
    assert Selection(select=("MLC101",), ignore=("MLC",)).chosen("MLC101")


def test_codes_are_split_on_commas_and_checked_against_the_table() -> None:
    shown = selection(["mlr06, MLC101", "MLP"], ["MLR060"])
    assert shown.select == ("MLR06", "MLC101", "MLP") and shown.ignore == ("MLR060",)
    with pytest.raises(SelectionError, match=r'did you mean "MLC107"'):
        selection(ignore=["MLC1O7"])
    with pytest.raises(SelectionError, match="no rule code is or starts with MLZ"):
        selection(select=["MLZ"])


def test_ignoring_an_official_error_code_is_refused() -> None:
    official = [
        info.code
        for info in catalog.all_rules()
        if info.severity is Severity.ERROR and not info.beyond
    ]
    assert official
    for code in official:
        with pytest.raises(SelectionError, match="cannot be ignored"):
            selection(ignore=[code])
    # Beyond-official codes and warnings may be ignored, one by one.
    for info in catalog.all_rules():
        if info.beyond or info.severity is not Severity.ERROR:
            selection(ignore=[info.code])


def test_no_selection_turns_a_failing_log_into_a_pass() -> None:
    for options in (
        ["--ignore", "MLC"],  # a prefix: the beyond checks go, the errors stay
        ["--ignore", "ML"],
        ["--select", "MLR06"],  # selects nothing the log has
        ["--select", "MLS", "--ignore", "MLC1"],
    ):
        code, out = _run("check", "--ruleset", "1.0.0", *options, BAD)
        assert code == 1, (options, out)
        assert "error: MLC020" in out, options
    code, out = _run("check", "--ruleset", "1.0.0", "--ignore", "MLC020", BAD)
    assert code == 2 and "cannot be ignored" in out


@pytest.mark.parametrize(
    "command",
    [
        ["check", "--ruleset", "1.0.0", GOOD],
        ["check", "--follow", "--ruleset", "1.0.0", GOOD],
        ["package", "--ruleset", "1.0.0", ACME],
        ["audit", "--ruleset", "1.0.0", ACME],
        ["score", "--ruleset", "1.0.0", ACME],
        ["summarize", "--ruleset", "1.0.0", ACME, "--csv", "out.csv"],
        ["hparams", "--ruleset", "1.0.0", ACME],
        ["report", "--ruleset", "1.0.0", ACME],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_every_command_refuses_an_unknown_code(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [*command, "--select", "MLR06,MLX123"])
    assert result.exit_code == 2, result.output
    assert "no rule code is or starts with MLX123" in result.output
    assert not list(tmp_path.rglob("*.csv")) and not list(tmp_path.rglob("*.html"))


def test_only_beyond_official_rules_can_be_in_preview() -> None:
    with pytest.raises(ValueError, match="only a beyond-official rule"):
        catalog.rule("MLZ999", "not-a-rule", Severity.WARNING, "x", stage="parse", why="x",
                     lifecycle=catalog.PREVIEW)  # fmt: skip
    for info in catalog.all_rules():
        assert info.lifecycle in catalog.LIFECYCLES
        assert not info.preview or info.beyond, info.code


def test_every_beyond_code_is_documented_with_its_firings() -> None:
    """docs/differences.md's generated table names every beyond-official code with its
    lifecycle, and the data file counts each in every round."""
    import docs_tables

    doc = (Path(__file__).resolve().parent.parent / "docs" / "differences.md").read_text()
    (table,) = [
        doc[begin:end]
        for begin, end, name, _ in docs_tables.regions(doc)
        if name == "beyond-firings"
    ]
    named = dict(re.findall(r"^\| \[(ML[A-Z]\d{3})\]\(\S+\) \| `[\w-]+` \| (\w+) \|", table, re.M))
    assert named == {i.code: i.lifecycle for i in catalog.all_rules() if i.beyond}
    data = beyond_firings.load(beyond_firings.DATA)
    reads = beyond_firings.load_reads(beyond_firings.READS)
    for code in named:  # every round's count in the data file, and the read of its firings
        assert all(code in counts for counts in data.values()), code
        (row,) = [line for line in table.splitlines() if line.startswith(f"| [{code}](")]
        if code in reads:
            assert row.endswith(f" | {reads[code]} |"), row


def test_every_stable_beyond_code_that_fires_has_a_read() -> None:
    """A check is stable once what it fires on has been read (true, defensible or
    false): a firing nobody read is not advice a reviewer can file."""
    data = beyond_firings.load(beyond_firings.DATA)
    reads = beyond_firings.load_reads(beyond_firings.READS)
    stable = {i.code for i in catalog.all_rules() if i.beyond and not i.preview}
    fired = {code for counts in data.values() for code, n in counts.items() if n}
    assert stable & fired <= set(reads), sorted(stable & fired - set(reads))
    assert set(reads) <= stable, sorted(set(reads) - stable)
    kinds = ("true", "defensible", "false")
    assert all(text.startswith(kinds) for text in reads.values()), reads


@pytest.mark.corpus
def test_preview_rules_show_only_when_asked(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Google's v1.0 headers at time 0 (MLC107, preview): hidden by default, shown with
    --preview or the project's preview = true, never raised by --strict."""
    found = sorted((corpus / "v1.0" / "Google" / "results").glob("*/bert/result_0.txt"))
    log = next(p for p in found if '"time_ms": 0,' in p.read_text())
    code, out = _run("check", str(log))
    assert code == 0 and "MLC107" not in out
    code, out = _run("check", "--preview", "--strict", str(log))
    assert code == 0 and "warning: MLC107" in out
    code, out = _run("check", "--preview", "--ignore", "MLC107", str(log))
    assert code == 0 and "MLC107" not in out
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    Path("pyproject.toml").write_text("[tool.mllog-check]\npreview = true\n")
    result = runner.invoke(cli, ["check", str(log)])
    assert result.exit_code == 0 and "warning: MLC107" in result.output
    Path("pyproject.toml").write_text('[tool.mllog-check]\nignore = ["MLC10"]\npreview = true\n')
    result = runner.invoke(cli, ["check", str(log)])
    assert result.exit_code == 0 and "MLC107" not in result.output
    Path("pyproject.toml").write_text('[tool.mllog-check]\nignore = ["MLC040"]\n')
    result = runner.invoke(cli, ["check", str(log)])
    assert result.exit_code == 2 and "cannot be ignored" in result.output
    assert "pyproject.toml" in result.output
    Path("pyproject.toml").write_text("[tool.mllog-check]\npreview = 1\n")
    result = runner.invoke(cli, ["check", str(log)])
    assert result.exit_code == 2 and "preview must be true or false" in result.output


@pytest.mark.corpus
def test_the_official_package_verdict_is_never_changed_by_selection(corpus: Path) -> None:
    """v1.0 Graphcore fails the official package checker (RCP, docs/differences.md): its
    official verdict line and its exit code stay whatever is selected; what is beyond
    the official checker is counted from what is shown."""
    org = str(corpus / "v1.0" / "Graphcore")
    base_code, base = _run("package", org)
    official = [line for line in base.splitlines() if "official package checker" in line]
    assert base_code == 1 and official
    for options in (["--select", "MLR06"], ["--ignore", "MLP,MLC1"], ["--preview"]):
        code, out = _run("package", org, *options)
        assert code == 1, options
        assert [line for line in out.splitlines() if "official package checker" in line] == official
    _, shown = _run("package", org, "--preview")
    assert "MLP004" in shown  # a preview rule of the package (a stray file)
    assert "MLP004" not in base


@pytest.mark.corpus
def test_score_shows_what_is_selected(corpus: Path) -> None:
    """v2.0 H3C U-Net3D evaluates off the rules' schedule (MLR060, stable: shown by
    default); --ignore MLR060 hides it, --select MLR06 keeps it."""
    org = str(corpus / "v2.0" / "H3C")
    code, out = _run("score", "--ruleset", "2.0.0", org)
    assert "MLR060" in out
    for options, shown in ((["--ignore", "MLR060"], False), (["--select", "MLR06"], True)):
        again, out = _run("score", "--ruleset", "2.0.0", org, *options)
        assert ("MLR060" in out) is shown and again == code, options


@pytest.mark.corpus
def test_the_audit_counts_what_it_shows(corpus: Path, tmp_path: Path) -> None:
    """orgs.csv's warnings are the warnings problems.csv lists, org by org, whatever is
    selected (v0.7: stray files, placeholders, MLC107 headers, mostly preview)."""
    import csv
    from collections import Counter

    preview = {i.code for i in catalog.all_rules() if i.preview}
    runs = {
        "default": [],
        "preview": ["--preview"],
        "some": ["--preview", "--ignore", "MLP,MLC107"],
    }
    shown: dict[str, list[dict[str, str]]] = {}
    for name, options in runs.items():
        out = tmp_path / name
        code, _ = _run("audit", str(corpus / "v0.7"), "--out", str(out), "--jobs", "1", *options)
        assert code in (0, 1)
        with open(out / "problems.csv", newline="") as handle:
            rows = shown[name] = list(csv.DictReader(handle))
        warnings = Counter(r["org"] for r in rows if r["severity"] == "warning")
        with open(out / "orgs.csv", newline="") as handle:
            orgs = list(csv.DictReader(handle))
        assert orgs
        for org in orgs:
            assert int(org["warnings"]) == warnings[org["org"]], (name, org["org"])
    assert not {r["rule"] for r in shown["default"]} & preview
    assert {r["rule"] for r in shown["preview"]} & preview
    some = shown["some"]
    assert not [
        r
        for r in some
        if r["rule"] == "MLC107" or (r["rule"].startswith("MLP") and r["severity"] != "error")
    ]
    # The package's official errors stay, --ignore MLP or not.
    errors = sorted(r["path"] + r["rule"] for r in shown["preview"] if r["severity"] == "error")
    assert errors and errors == sorted(
        r["path"] + r["rule"] for r in some if r["severity"] == "error"
    )


@pytest.mark.corpus
def test_follow_shows_what_is_selected(corpus: Path) -> None:
    """check --follow filters as it goes and in its report: a finished v1.0 Google log
    with headers at time 0 (MLC107, preview)."""
    import subprocess

    found = sorted((corpus / "v1.0" / "Google" / "results").glob("*/bert/result_0.txt"))
    log = next(p for p in found if '"time_ms": 0,' in p.read_text())
    base = [sys.executable, "-c", "from mllog_check.cli import main; main()", "check"]
    base += ["--follow", "--until", "run_stop", str(log)]
    cases = (([], False), (["--preview"], True), (["--preview", "--ignore", "MLC107"], False))
    for options, shown in cases:
        done = subprocess.run([*base, *options], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert ("MLC107" in done.stdout + done.stderr) is shown, options
