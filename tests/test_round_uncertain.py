"""A log whose round its date gives may belong to the next round too (a run re-used there).

Real corpus logs copied outside their round folder: when both rounds give the same
verdict, ``check`` says the round is uncertain and that it does not matter; when they
differ it reports both verdicts (docs/rounds.md, "Choosing the round").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mllog_check import rounds
from mllog_check.checking import ALTERNATIVE, check_paths
from mllog_check.cli import cli
from mllog_check.records import Generation, Record

pytestmark = pytest.mark.corpus


def _outside(corpus: Path, relative: str, tmp_path: Path) -> Path:
    """A corpus log copied under its benchmark folder's name, no round folder above."""
    source = corpus / relative
    copy = tmp_path / "logs" / source.parent.name / source.name
    copy.parent.mkdir(parents=True)
    shutil.copy(source, copy)
    return copy


def test_same_verdict_in_both_rounds_says_it_does_not_matter(corpus: Path, tmp_path: Path) -> None:
    # v5.0 RGAT, run in v5.0's window: 5.0.0 by date; 5.1.0 keeps rgat and passes it too
    log = _outside(corpus, "v5.0/GigaComputing/results/G893-SD1_dgl/rgat/result_0.txt", tmp_path)
    run = check_paths([str(log)])
    assert [(v.ruleset, v.passed, v.ruleset_source) for v in run.verdicts] == [
        ("training-5.0.0", True, "date")
    ]
    (note,) = [line for line in run.lines() if "round uncertain" in line]
    assert "gives 5.0.0" in note and "5.1.0's" in note and "it does not matter" in note
    assert run.exit_code == 0


def test_different_verdicts_are_both_reported(corpus: Path, tmp_path: Path) -> None:
    # v2.1 Intel BERT: 2.1.0 by date passes; 3.0.0 (the next round with bert) requires
    # keys v2.1 did not log (MLC010): both verdicts, no guess
    log = _outside(corpus, "v2.1/Intel/results/8-nodes-SPR-pytorch/bert/result_0.txt", tmp_path)
    run = check_paths([str(log)])
    got = [(v.ruleset, v.passed, v.ruleset_source) for v in run.verdicts]
    assert got == [("training-2.1.0", True, "date"), ("training-3.0.0", False, ALTERNATIVE)]
    assert {p.rule for p in run.verdicts[1].problems if p.is_error} == {"MLC010"}
    (note,) = [line for line in run.lines() if "round uncertain" in line]
    assert "the verdicts differ (2.1.0 passes, 3.0.0 fails)" in note and "--ruleset" in note
    assert run.exit_code == 1
    done = CliRunner().invoke(cli, ["check", "--format", "json", str(log)])
    rows = json.loads(done.stdout)
    files = rows["files"] if isinstance(rows, dict) else rows
    assert [f["ruleset_source"] for f in files] == ["date", ALTERNATIVE]
    # the text's last line counts one file with two verdicts, not two files
    text = CliRunner().invoke(cli, ["check", str(log)]).stdout
    assert text.splitlines()[-1] == (
        "1 file, 2 verdicts under two rounds (its round is uncertain): 1 pass, 1 fail"
    )
    # a flag, or the round folder, decides: one verdict, no note
    flagged = check_paths([str(log)], "2.1.0")
    assert len(flagged.verdicts) == 1 and flagged.exit_code == 0
    assert not any("round uncertain" in line for line in flagged.lines())


def test_the_alternative_is_the_next_round_the_content_allows() -> None:
    day = rounds._days_from_civil(2025, 8, 1) * 86_400_000.0  # in v5.1's window
    records = [
        Record("x.txt", 1, 1, Generation.MLLOG, "", day, "POINT_IN_TIME", key, value, {})
        for key, value in (("submission_benchmark", "llama2_70b_lora"), ("run_start", None))
    ]
    found = rounds.from_records(records)
    assert found is not None and (found.ruleset, found.source) == ("5.1.0", "date")
    assert found.alternatives == ("6.0.0",)
    assert rounds.from_flag("5.1.0").alternatives == ()
