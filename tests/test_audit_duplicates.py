"""Near-duplicate runs (MLA018-MLA020) on copies of real corpus logs with one line
edited, and the score of a result set with a duplicated run, recomputed."""

from __future__ import annotations

import re
import shutil
import statistics
from pathlib import Path

import pytest

from mllog_check.submission.audit import run_audit

ORG = "GigaComputing"
SYSTEM = "G593-ZD1_dgl"
GNN = f"{ORG}/results/{SYSTEM}/gnn"


def _org(corpus: Path, tmp_path: Path) -> Path:
    """A copy of the v4.1 GigaComputing submission (10 gnn runs per result)."""
    root = tmp_path / "v4.1"
    shutil.copytree(corpus / "v4.1" / ORG, root / ORG)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _seed_line(text: str) -> str:
    return next(line for line in text.splitlines() if '"key": "seed"' in line)


@pytest.mark.corpus
def test_a_copy_in_one_result_set_is_counted_and_the_score_recomputed(
    corpus: Path, tmp_path: Path
) -> None:
    """As in the published record: one run twice in a result set, only a seed line after
    run_stop differing (result_3 replaced by result_0 plus that line)."""
    root = _org(corpus, tmp_path)
    folder = root / GNN
    text = (folder / "result_0.txt").read_text()
    seed = _seed_line(text).replace('"value": ', '"value": 1', 1)
    (folder / "result_3.txt").write_text(text.rstrip("\n") + "\n" + seed + "\n")
    result = run_audit(root, jobs=1)
    (found,) = [a for a in result.anomalies if a.name == "duplicate-run-counted"]
    assert found.path == f"{GNN}/result_3.txt" and found.impact == "score"
    assert f"a copy of {GNN}/result_0.txt (the same run_start/run_stop time_ms" in found.message
    lines = text.count("\n")
    assert f"nothing after line {lines} vs line {lines + 1} (seed)" in found.message
    # both numbers: the published score (10 runs, result_0 twice) and without the copy
    minutes = {r["path"].rsplit("/", 1)[1]: r["minutes"] for r in result.runs if GNN in r["path"]}
    published = statistics.fmean(sorted(minutes.values())[1:-1])
    without = statistics.fmean(
        sorted(m for name, m in minutes.items() if name != "result_3.txt")[1:-1]
    )
    assert round(published, 2) != round(without, 2)
    assert f"score {published:.2f} min; without the copies {without:.2f} min" in found.message
    (row,) = [r for r in result.results if (r["system"], r["benchmark"]) == (SYSTEM, "gnn")]
    assert row["copies"] == 1 and row["minutes_without_copies"] == pytest.approx(without)
    assert row["minutes"] == pytest.approx(published) and row["rank"] == 1
    # the copy's first seed repeats result_0's: the round's seed check fails both (MLR020)
    assert row["worst"] == "score" and row["worst_kind"] == "published-but-failing"
    assert "(9 runs left where the round requires at least 10)" in found.message


@pytest.mark.corpus
def test_a_result_re_filed_under_another_system_and_org(corpus: Path, tmp_path: Path) -> None:
    """A result set copied to another system of another org, the platform edited in one
    log and run_start moved in another: one shares the window, the other the curve; the
    unedited copies are duplicate-log, nothing else is reported twice."""
    root = _org(corpus, tmp_path)
    copy = root / "Zeta"
    (copy / "systems").mkdir(parents=True)
    shutil.copy(root / ORG / "systems" / f"{SYSTEM}.json", copy / "systems" / "cc-1.json")
    shutil.copytree(root / GNN, copy / "results/cc-1/gnn")
    first = copy / "results/cc-1/gnn/result_0.txt"
    _edit(first, '"value": "1xG593-ZD1"', '"value": "1xCC-1"')
    second = copy / "results/cc-1/gnn/result_1.txt"
    start = next(ln for ln in second.read_text().splitlines() if '"key": "run_start"' in ln)
    ms = start.split('"time_ms": ')[1].split(",")[0]
    _edit(second, f'"time_ms": {ms}, "event_type": "INTERVAL_START", "key": "run_start"', (
        f'"time_ms": {int(ms) - 1000}, "event_type": "INTERVAL_START", "key": "run_start"'
    ))  # fmt: skip
    result = run_audit(root, jobs=1)
    near = {(a.name, a.path): a for a in result.anomalies if a.name.startswith("shared-")}
    window = near.pop(("shared-run-window", "Zeta/results/cc-1/gnn/result_0.txt"))
    assert window.message.startswith(f"the same run_start/run_stop time_ms as {GNN}/result_0.txt")
    assert "(submission_platform) vs line" in window.message and window.impact == "score"
    curve = near.pop(("shared-eval-curve", "Zeta/results/cc-1/gnn/result_1.txt"))
    assert curve.message.startswith(f"the same evaluation curve as {GNN}/result_1.txt")
    assert "(run_start) vs line" in curve.message
    assert near == {}  # the identical copies are duplicate-log only
    dups = {a.path for a in result.anomalies if a.name == "duplicate-log"}
    assert dups == {f"Zeta/results/cc-1/gnn/result_{n}.txt" for n in range(2, 10)}
    assert not [a for a in result.anomalies if a.name == "duplicate-run-counted"]


@pytest.mark.corpus
def test_the_published_record_has_no_false_near_duplicate(corpus: Path) -> None:
    """v4.1 audited with v5.0 (different systems' runs of one org, GigaComputing, in
    both): no two published runs share a window or a curve there."""
    result = run_audit([corpus / "v4.1", corpus / "v5.0"], jobs=1)
    kinds = {a.name for a in result.anomalies}
    assert not kinds & {"shared-run-window", "shared-eval-curve", "duplicate-run-counted"}
    assert len(result.results) == len(result.scores)


def test_differing_lines_are_bounded_on_hostile_files(tmp_path: Path) -> None:
    """Two 60,000-line files sharing only their head: one hunk, not difflib's matcher
    (quadratic in the worst case) over all of them."""
    from mllog_check.submission.fingerprints import differing_lines

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("same\n" + "".join(f"a {n % 7}\n" for n in range(60_000)))
    second.write_text("same\n" + "".join(f"b {n % 5}\n" for n in range(60_000)))
    assert differing_lines(first, second) == "lines 2-60001 vs lines 2-60001"
    second.write_text(first.read_text().replace("a 3\n", '{"key": "seed"}\n', 1))
    assert differing_lines(first, second) == "line 5 vs line 5 (seed)"


def test_files_too_large_are_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mllog_check.submission import fingerprints

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("x\n" * 100)
    second.write_text("y\n" * 100)
    monkeypatch.setattr(fingerprints, "MAX_DIFF_BYTES", 2**20 // 8192)  # 128 bytes
    assert fingerprints.differing_lines(first, second).startswith("not compared: over")


def _shifted(text: str, ms: int) -> str:
    """A log with every time_ms moved by ``ms``: the same run's records and curve, in
    another timed window."""
    return re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m[1]) + ms}', text)


@pytest.mark.corpus
def test_the_same_curve_in_its_own_window_is_no_copy(corpus: Path, tmp_path: Path) -> None:
    """Deterministic training (published v1.0 RNN-T results): runs with their own
    windows that log one curve are each a run, found as same-eval-curve (info), never
    duplicate-run-counted; the score has no copies."""
    root = _org(corpus, tmp_path)
    folder = root / GNN
    text = (folder / "result_0.txt").read_text()
    (folder / "result_3.txt").write_text(_shifted(text, 7 * 86_400_000))
    result = run_audit(root, jobs=1)
    names = {a.name for a in result.anomalies}
    assert "duplicate-run-counted" not in names
    (found,) = [a for a in result.anomalies if a.name == "same-eval-curve"]
    assert found.path == f"{GNN}/result_3.txt" and found.impact == "info"
    assert found.message.startswith(
        f"the same evaluation curve as {GNN}/result_0.txt, with its own"
    )
    (row,) = [r for r in result.results if (r["system"], r["benchmark"]) == (SYSTEM, "gnn")]
    assert not row["copies"] and row["minutes_without_copies"] is None


HPC_SYSTEM = "perlmutter_10x128x4_ngc21.09_mxnet"
WEAK = f"LBNL/results/{HPC_SYSTEM}/weak/cosmoflow"


def _weak(corpus: Path, tmp_path: Path) -> Path:
    """A copy of the hpc-v1.0 LBNL submission (10 weak-scaling CosmoFlow models)."""
    root = tmp_path / "hpc-v1.0"
    shutil.copytree(corpus / "hpc-v1.0" / "LBNL", root / "LBNL")
    return root


def _times(text: str, key: str) -> str:
    line = next(ln for ln in text.splitlines() if f'"key": "{key}"' in ln)
    return line.split('"time_ms": ')[1].split(",")[0]


@pytest.mark.corpus
def test_weak_models_launched_together_are_no_copies(corpus: Path, tmp_path: Path) -> None:
    """Weak-scaling models start and stop together: a shared window is no copy there."""
    root = _weak(corpus, tmp_path)
    first = (root / WEAK / "result_1.txt").read_text()
    second = root / WEAK / "result_2.txt"
    text = second.read_text()
    for key in ("run_start", "run_stop"):
        text = text.replace(f'"time_ms": {_times(text, key)}', f'"time_ms": {_times(first, key)}')
    second.write_text(text)
    result = run_audit(root, jobs=1)
    assert not [a for a in result.anomalies if a.name == "duplicate-run-counted"]


@pytest.mark.corpus
def test_a_weak_result_without_its_copy_is_scored_as_weak_scaling(
    corpus: Path, tmp_path: Path
) -> None:
    """An 11th model that is a copy of another: the score without it is the time to
    train all of the 10 others (the official tuple), not an olympic mean."""
    root = _weak(corpus, tmp_path)
    folder = root / WEAK
    clean = run_audit(root, jobs=1)
    (before,) = [r for r in clean.scores if (r["system"], r["scaling"]) == (HPC_SYSTEM, "weak")]
    shutil.copy(folder / "result_1.txt", folder / "result_11.txt")
    result = run_audit(root, jobs=1)
    (found,) = [a for a in result.anomalies if a.name == "duplicate-run-counted"]
    assert found.path == f"{WEAK}/result_11.txt"
    (row,) = [r for r in result.results if r["system"] == HPC_SYSTEM]
    assert row["copies"] == 1
    assert row["minutes_without_copies"] == pytest.approx(before["minutes"])
    assert f"without the copies {before['minutes']:.2f} min (time to train all of 10" in (
        found.message
    )


@pytest.mark.corpus
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_lines_read_in_chunks_are_the_lines_of_the_whole_text(
    chunk: int, corpus: Path, tmp_path: Path
) -> None:
    # differing_lines reads logs a chunk at a time (its memory stays small): the lines
    # must be str.splitlines' of the whole decoded text, whatever the chunk boundaries.
    from mllog_check.submission.fingerprints import read_lines

    logs = sorted(corpus.glob("*/*/results/*/*/result_*.txt"))[::97][:4]
    assert logs
    odd = tmp_path / "odd.txt"
    odd.write_bytes(b"a\r\nb\rc\n\nd\xe2\x80\xa8e\x85f\xff\xfeg\x0ch\x1ci\r\r\n\xe2\x82")
    for path in [*logs, odd]:
        whole = path.read_bytes().decode("utf-8", "replace").splitlines()
        if chunk == 1 and len(whole) > 2000:
            continue  # byte by byte: the small file and short logs only
        assert list(read_lines(path, chunk)) == whole, path
