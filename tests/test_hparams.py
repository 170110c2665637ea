"""`mllog-check hparams`: hyperparameters as a table, borrowing candidates and declared
borrowing checked key by key (docs/hparams.md), on real published logs."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mllog_check.cli.group import cli
from mllog_check.results.borrowing import check_declarations, load_declarations
from mllog_check.results.hparams import hparam_table, same_as_groups
from mllog_check.rounds import registry

ROOT = Path(__file__).resolve().parents[1]
AMD_8B = "v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b"
GIGA_8B = "v5.1/GigaComputing/results/G893-ZX1-AAX4_pytorch/llama31_8b"


def _first_value(log: Path, key: str) -> object:
    """The first value of ``key`` read with a regular expression, not the parser."""
    pattern = re.compile(r'"key": "' + key + r'", "value": ([^,}]+)')
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        found = pattern.search(line)
        if found:
            return json.loads(found.group(1))
    raise AssertionError(f"{key} not in {log}")


def _copy_sets(corpus: Path, tmp: Path, *sets: str) -> Path:
    """The result sets (with their org's systems/) copied under tmp/v5.1/..."""
    for folder in sets:
        shutil.copytree(corpus / folder, tmp / folder)
        org = Path(folder).parts[1]
        shutil.copytree(
            corpus / "v5.1" / org / "systems", tmp / "v5.1" / org / "systems", dirs_exist_ok=True
        )
    return tmp


def _declare(tmp: Path, borrower: str, lender: str) -> Path:
    file = tmp / "borrowings.yaml"
    file.write_text(f"borrowings:\n  - result: {borrower}\n    from: {lender}\n", "utf-8")
    return file


@pytest.mark.corpus
def test_values_are_each_sets_first_logged_values(corpus: Path) -> None:
    rows = {r.folder: r for r in hparam_table([str(corpus / "v5.1")]).rows}
    row = rows[str(corpus / AMD_8B)]
    first_log = sorted((corpus / AMD_8B).glob("result_*.txt"))[0]
    for key in ("opt_base_learning_rate", "global_batch_size", "opt_learning_rate_warmup_steps"):
        assert row.values[key] == _first_value(first_log, key), key
    assert (row.round, row.org, row.benchmark, row.division) == (
        "5.1.0",
        "AMD",
        "llama31_8b",
        "closed",
    )
    assert row.runs == 10 and row.disagree == ()
    # The quality metric (a target) and seeds (they must differ) are not hyperparameters.
    assert "eval_accuracy" not in row.keys and "seed" not in row.keys


@pytest.mark.corpus
def test_same_as_groups_a_partner_system_with_its_vendors_hyperparameters(corpus: Path) -> None:
    rows = hparam_table([str(corpus / "v5.1")]).rows
    groups = same_as_groups(rows)
    by_set = {(r.org, r.system, r.benchmark): n for n, g in enumerate(groups) for r in g}
    amd = by_set[("AMD", "MI355X_EPYC_9575F_pytorch", "llama31_8b")]
    assert by_set[("GigaComputing", "G893-ZX1-AAX4_pytorch", "llama31_8b")] == amd
    # MI350X logs another learning rate: not in that group.
    assert by_set.get(("AMD", "MI350X_EPYC_9575F_pytorch", "llama31_8b")) != amd
    assert all(len({r.org for r in g}) > 1 for g in groups)


@pytest.mark.corpus
def test_published_runs_that_disagree_are_flagged(corpus: Path) -> None:
    rows = hparam_table([str(corpus / "v4.1" / "Google")]).rows
    row = next(r for r in rows if r.system == "cloud-tpu-v5p-2048-maxdiffusion")
    assert row.disagree == ("opt_base_learning_rate", "opt_learning_rate_warmup_steps")


@pytest.mark.corpus
def test_a_planted_change_in_one_run_is_flagged(corpus: Path, tmp_path: Path) -> None:
    tree = _copy_sets(corpus, tmp_path, AMD_8B)
    log = tree / AMD_8B / "result_3.txt"
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace('"value": 0.0008', '"value": 0.0009', 1), encoding="utf-8")
    (row,) = hparam_table([str(tree / "v5.1")]).rows
    assert row.disagree == ("opt_base_learning_rate",)
    assert row.values["opt_base_learning_rate"] == 0.0008  # the first run's


@pytest.mark.corpus
def test_runs_that_disagree_warn_in_score_and_package(corpus: Path) -> None:
    """MLR068: the result sets whose closed runs disagree are the hparams rows with a
    disagree cell; one warning each, at the first run off the majority's value."""
    from mllog_check.results import compute_scores
    from mllog_check.submission.package import check_package

    org = corpus / "v4.1" / "Google"
    flagged = {r.folder for r in hparam_table([str(org)]).rows if r.disagree}
    assert flagged  # the published case: two learning rates in one result
    warned = [p for p in compute_scores([str(org)]).problems if p.rule == "MLR068"]
    assert {str(Path(p.path).parent) for p in warned} == flagged
    assert all(p.severity == "warning" and p.line > 0 for p in warned)
    two = next(p for p in warned if "2048-maxdiffusion" in p.path)
    # runs 0-1 at 0.0004048, runs 2-9 at 0.0002548: the majority first, at result_0's line
    assert Path(two.path).name == "result_0.txt"
    assert "opt_base_learning_rate 0.0002548 (8 runs: " in two.message
    assert "vs 0.0004048 (2 runs: result_0.txt, result_1.txt)" in two.message
    packaged = {p.path for p in check_package(org, "4.1.0").problems if p.rule == "MLR068"}
    assert {Path(p).name for p in packaged} == {Path(p.path).name for p in warned}


@pytest.mark.corpus
def test_the_audit_shows_runs_that_disagree_as_a_rule_break(corpus: Path, tmp_path: Path) -> None:
    """The audit's screen showed no hyperparameter finding (problems.csv alone): MLR068 is
    the anomaly kind hparams-differ, a rule break ranked above habits, at its line."""
    from mllog_check.submission.audit import run_audit

    tree = tmp_path / "v4.1"
    shutil.copytree(corpus / "v4.1" / "Google", tree / "Google")
    found = [a for a in run_audit(tree, "4.1.0", jobs=1).anomalies if a.name == "hparams-differ"]
    flagged = {Path(r.folder).parent.name for r in hparam_table([str(tree)]).rows if r.disagree}
    assert flagged and {Path(a.path).parent.parent.name for a in found} == flagged
    assert all(a.rule == "MLA023" and a.impact == "rules" and a.line > 0 for a in found)


@pytest.mark.corpus
def test_a_planted_change_warns_and_the_copy_as_published_does_not(
    corpus: Path, tmp_path: Path
) -> None:
    from mllog_check.results import compute_scores

    tree = _copy_sets(corpus, tmp_path, AMD_8B)
    assert "MLR068" not in {p.rule for p in compute_scores([str(tree / "v5.1")]).problems}
    log = tree / AMD_8B / "result_3.txt"
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace('"value": 0.0008', '"value": 0.0009' + "9" * 500, 1), "utf-8")
    (found,) = [p for p in compute_scores([str(tree / "v5.1")]).problems if p.rule == "MLR068"]
    assert Path(found.path).name == "result_3.txt" and "(1 run: result_3.txt)" in found.message
    assert len(found.message) < 400  # a hostile value is quoted short


@pytest.mark.corpus
def test_declared_borrowing_checked_key_by_key(corpus: Path, tmp_path: Path) -> None:
    mi350 = "v5.1/AMD/results/MI350X_EPYC_9575F_pytorch/llama31_8b"
    rows = hparam_table([str(corpus / "v5.1")]).rows
    giga, amd = (
        "5.1.0/GigaComputing/G893-ZX1-AAX4_pytorch/llama31_8b",
        "v5.1/AMD/MI355X_EPYC_9575F_pytorch/llama31_8b",
    )
    same = _declare(tmp_path, giga, amd)
    assert check_declarations(load_declarations(same), rows, str(same)) == []
    other = _declare(tmp_path, giga, "v5.1/AMD/MI350X_EPYC_9575F_pytorch/llama31_8b")
    found = check_declarations(load_declarations(other), rows, str(other))
    first = sorted((corpus / mi350).glob("result_*.txt"))[0]
    lender_lr = _first_value(first, "opt_base_learning_rate")
    assert {p.rule for p in found} == {"MLR063"}
    message = next(p.message for p in found if "opt_base_learning_rate" in p.message)
    assert f"0.0008, the lender's {lender_lr!r}" in message
    assert all((p.line, p.column) == (2, 1) for p in found)


@pytest.mark.corpus
def test_a_different_batch_size_alone_is_allowed(corpus: Path, tmp_path: Path) -> None:
    tree = _copy_sets(corpus, tmp_path, AMD_8B, GIGA_8B)
    for log in (tree / GIGA_8B).glob("result_*.txt"):
        text = log.read_text(encoding="utf-8")
        text = re.sub(r'("key": "global_batch_size", "value": )32', r"\g<1>64", text)
        log.write_text(text, encoding="utf-8")
    rows = hparam_table([str(tree / "v5.1")]).rows
    decl = _declare(
        tmp_path,
        "5.1.0/GigaComputing/G893-ZX1-AAX4_pytorch/llama31_8b",
        "5.1.0/AMD/MI355X_EPYC_9575F_pytorch/llama31_8b",
    )
    assert check_declarations(load_declarations(decl), rows, str(decl)) == []
    assert {r.values["global_batch_size"] for r in rows} == {32, 64}


@pytest.mark.corpus
def test_cli_exit_codes_and_unresolved_declaration(corpus: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["hparams", str(corpus / "v5.1"), "--same-as"])
    assert ok.exit_code == 0, ok.output
    assert "G893-ZX1-AAX4_pytorch" in ok.output
    decl = _declare(
        tmp_path,
        "5.1.0/GigaComputing/G893-ZX1-AAX4_pytorch/llama31_8b",
        "5.1.0/AMD/no-such-system/llama31_8b",
    )
    bad = runner.invoke(cli, ["hparams", str(corpus / "v5.1"), "--borrowing", str(decl)])
    assert bad.exit_code == 1
    assert "MLR064" in bad.output and f"{decl}:2:1" in bad.output


def test_a_borrowing_file_that_is_not_one_exits_2(tmp_path: Path) -> None:
    tree = str(ROOT / "fixtures/hparams/borrow")
    runner = CliRunner()
    wrong = tmp_path / "b.yaml"
    wrong.write_text("borrowings:\n  - result: a/b/c/d\n", "utf-8")
    result = runner.invoke(cli, ["hparams", tree, "--borrowing", str(wrong)])
    assert result.exit_code == 2 and "needs 'result' and 'from'" in result.output
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # never read: a FIFO without a writer would block forever
    result = runner.invoke(cli, ["hparams", tree, "--borrowing", str(fifo)])
    assert result.exit_code == 2 and "not a regular file" in result.output


@pytest.mark.corpus
def test_every_corpus_round_in_one_parquet_table(corpus: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "hparams.parquet"
    result = CliRunner().invoke(
        cli, ["hparams", str(corpus), "--format", "parquet", "-o", str(out)]
    )
    assert result.exit_code in (0, 1), result.output
    table = pq.read_table(out)
    rounds = set(table.column("round").to_pylist())
    named = [registry().find(p.name) for p in corpus.iterdir() if p.is_dir()]
    assert {rnd.version for rnd in named if rnd is not None} <= rounds
    # Rounds without compliance rules say so instead of showing empty columns silently.
    notes = {n for n in table.column("note").to_pylist() if n}
    assert any(n.startswith("no closed rules for") for n in notes)
