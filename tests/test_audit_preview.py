"""Preview systems a round later (MLA050, docs/audit.md): the audit of two rounds lists
each preview system with no available system of the same submitter and name (or
accelerator and count) in the round it had to be available by."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mllog_check.rounds import all_rounds
from mllog_check.submission.audit import run_audit
from mllog_check.submission.preview import PREVIEW_DAYS, deadline_round


def _rounds(corpus: Path, tmp: Path, org: str, *rounds: str) -> list[str]:
    for name in rounds:
        shutil.copytree(corpus / name / org, tmp / name / org)
    return [str(tmp / name) for name in rounds]


def _previews(folders: list[str]) -> dict[str, str]:
    found = run_audit(folders, None, jobs=1).anomalies
    return {Path(a.path).stem: a.message for a in found if a.rule == "MLA050"}


@pytest.mark.corpus
def test_google_tpu_v4_preview_systems_of_v1_0_a_round_later(corpus: Path, tmp_path: Path) -> None:
    found = _previews(_rounds(corpus, tmp_path, "Google", "v1.0", "v1.1"))
    # tpu-v4-4096-TF came back as an available system of the same name in v1.1; the
    # research system (Distributed Shampoo) was never a preview.
    assert sorted(found) == [
        "tpu-v4-1024-JAX",
        "tpu-v4-128-JAX",
        "tpu-v4-128-TF",
        "tpu-v4-2048-TF",
        "tpu-v4-256-TF",
        "tpu-v4-6912-TF",
    ]
    message = found["tpu-v4-2048-TF"]
    assert "results: maskrcnn 4.68 min" in message and "in 1.1.0" in message
    assert "tpu-v4-2048-JAX (rdi), tpu-v4-4096-TF (onprem)" in message


@pytest.mark.corpus
def test_nothing_is_said_without_the_round_after(corpus: Path, tmp_path: Path) -> None:
    assert _previews(_rounds(corpus, tmp_path, "Google", "v1.0")) == {}


@pytest.mark.corpus
def test_a_submitter_absent_a_round_later_is_named(corpus: Path, tmp_path: Path) -> None:
    folders = _rounds(corpus, tmp_path, "Google", "v1.0")
    folders += _rounds(corpus, tmp_path, "Baidu", "v1.1")
    found = _previews(folders)
    assert len(found) == 7
    assert all(
        "Google has no result in 1.1.0 among the folders audited" in m for m in found.values()
    )


def test_the_deadline_is_the_first_round_140_days_later() -> None:
    for rnd in all_rounds():
        due = deadline_round(rnd.version)
        if due is None:
            continue
        assert due.usage == rnd.usage and due.number > rnd.number
        skipped = [
            r for r in all_rounds() if r.usage == rnd.usage and rnd.number < r.number < due.number
        ]
        for early in skipped:  # only rounds published too soon are passed over
            assert early.published_ms is not None and rnd.published_ms is not None
            assert early.published_ms - rnd.published_ms < PREVIEW_DAYS * 86_400_000
