"""The whole record, read once (docs/audit.md, docs/report.md): the audit's stdout leads with what a
reader wants, and ``trends`` and ``report`` read an audit's output folder
(``--from-audit``) and give what they give from the logs."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytestmark = pytest.mark.corpus

CLI = [sys.executable, "-c", "from mllog_check.cli import main; main()"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> tuple[Path, str, list[Path]]:
    """An audit of two corpus rounds: one whose results re-publish earlier runs, one
    with a result only anomalies name (no score)."""
    rounds = [corpus / "v0.7", corpus / "v3.1"]
    out = tmp_path_factory.mktemp("audit") / "out"
    done = _run("audit", *map(str, rounds), "--out", str(out), "-j", "2")
    assert done.returncode in (0, 1), done.stderr
    return out, done.stdout, rounds


def test_stdout_leads_with_the_summary_and_the_ranking(
    audited: tuple[Path, str, list[Path]],
) -> None:
    out, text, _ = audited
    lines = text.splitlines()
    orgs = pd.read_csv(out / "orgs.csv")
    assert lines[0].startswith(f"audited {len(orgs)} orgs ("), lines[0]
    assert f"{int((~orgs['passed']).sum())} fail" in lines[0]
    ranked = lines.index("results, ranked (anomalies by severity: score, rules, info):")
    verdicts = [i for i, ln in enumerate(lines) if ln.startswith(("PASS ", "FAIL "))]
    assert verdicts and min(verdicts) > ranked  # the orgs come after the findings


def test_republished_and_unscored_results_do_not_lead(
    audited: tuple[Path, str, list[Path]],
) -> None:
    """Within a severity, results first published here come before re-published ones,
    and scored ones before those with no score (the line says why it has none)."""
    out, text, _ = audited
    results = pd.read_parquet(out / "results.parquet").sort_values("rank")
    assert results["republished"].eq(True).any() and results["minutes"].isna().any()
    for _, group in results[results["worst"] != ""].groupby("worst"):
        again = group["republished"].eq(True).tolist()
        assert again == sorted(again), group[["rank", "org", "system", "republished"]]
        fresh = group[~group["republished"].eq(True)]
        unscored = fresh["minutes"].isna().tolist()
        assert unscored == sorted(unscored), fresh[["rank", "org", "system", "minutes"]]
    shown = [ln for ln in text.splitlines() if ": no score" in ln]
    assert shown and all("no score (" in ln for ln in shown), shown
    marked = [ln for ln in text.splitlines() if "(re-published)" in ln]
    listed = results[results["republished"].eq(True) & results["worst"].isin(["score", "rules"])]
    assert len(marked) == len(listed)


# Rounds that hold what the record must carry: a preview system whose deadline round is
# audited too (v4.1 -> v5.0: MLA050), power logs (v5.0) and MLPerf HPC weak scaling with
# a pruned folder (hpc-v1.0).
RECORD_ROUNDS = ("v4.1", "v5.0", "hpc-v1.0")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> tuple[Path, list[str]]:
    rounds = [str(corpus / r) for r in RECORD_ROUNDS]
    out = tmp_path_factory.mktemp("record") / "audit"
    done = _run("audit", *rounds, "--out", str(out), "-j", "2")
    assert done.returncode in (0, 1), done.stderr
    assert (out / "record.json.gz").is_file()
    return out, rounds


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_trends_from_an_audit_equal_trends_from_the_logs(
    record: tuple[Path, list[str]], fmt: str
) -> None:
    folder, rounds = record
    logs = _run("trends", *rounds, "--format", fmt)
    audited = _run("trends", "--from-audit", str(folder), "--format", fmt)
    assert logs.returncode == audited.returncode == 0, logs.stderr + audited.stderr
    assert logs.stdout.count("\n") > 3
    assert audited.stdout == logs.stdout


def test_report_from_an_audit_equals_the_report_from_the_logs(
    record: tuple[Path, list[str]], tmp_path: Path
) -> None:
    folder, rounds = record
    (tmp_path / "logs").mkdir()
    (tmp_path / "audit").mkdir()
    logs = _run("report", *rounds, "--out", str(tmp_path / "logs/r.html"), "-j", "2")
    audited = _run("report", "--from-audit", str(folder), "--out", str(tmp_path / "audit/r.html"))
    assert logs.returncode == audited.returncode, logs.stderr + audited.stderr
    said = audited.stdout.replace(str(tmp_path / "audit"), str(tmp_path / "logs"))
    assert said == logs.stdout and audited.stderr == logs.stderr
    written, read = _files(tmp_path / "logs"), _files(tmp_path / "audit")
    assert len(written) > 3 and any(name.startswith("r_pages/") for name in written)
    assert sorted(read) == sorted(written)
    assert [name for name in written if read[name] != written[name]] == []


def _rewrite(source: Path, folder: Path, change: object) -> Path:
    """A copy of an audit's record with ``change`` applied to its JSON document."""
    import gzip
    import json

    document = json.loads(gzip.decompress((source / "record.json.gz").read_bytes()))
    change(document)  # type: ignore[operator]
    folder.mkdir()
    (folder / "record.json.gz").write_bytes(gzip.compress(json.dumps(document).encode()))
    return folder


def _refused(folder: Path, said: str) -> None:
    for command in ("trends", "report"):
        out = ["--out", str(folder.parent / "r.html")] if command == "report" else []
        done = _run(command, "--from-audit", str(folder), *out)
        assert done.returncode == 2 and said in done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr and not done.stdout


def test_a_record_of_another_version_is_refused(
    record: tuple[Path, list[str]], tmp_path: Path
) -> None:
    older = _rewrite(record[0], tmp_path / "older", lambda d: d.update(mllog_check="0.0.1"))
    _refused(older, "written by mllog-check 0.0.1")
    _refused(older, "audit again with this version")
    newer = _rewrite(record[0], tmp_path / "newer", lambda d: d.update(version=99))
    _refused(newer, "record version 99")


def test_a_hostile_record_is_refused_with_a_reason(
    record: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """An audit folder is someone else's data (docs/security.md): schema-checked before
    a value is used, never through a link, bounded."""
    import gzip

    from mllog_check.html_report import record as module

    pathless = _rewrite(record[0], tmp_path / "pathless", lambda d: d["runs"][0].pop("path"))
    _refused(pathless, "not a valid record at runs/0")
    typed = _rewrite(record[0], tmp_path / "typed", lambda d: d["scores"][0].update(minutes="1"))
    _refused(typed, "not a valid record at scores/0/minutes")
    curveless = _rewrite(record[0], tmp_path / "curveless", lambda d: d["curves"].clear())
    _refused(curveless, "no evaluation curve for")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "record.json.gz").symlink_to(record[0] / "record.json.gz")
    _refused(linked, "not read")
    (tmp_path / "empty").mkdir()
    _refused(tmp_path / "empty", "holds no record.json.gz")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "record.json.gz").write_bytes(b"\x1f\x8b not gzip")
    _refused(junk, "not gzip")
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    (truncated / "record.json.gz").write_bytes((record[0] / "record.json.gz").read_bytes()[:500])
    _refused(truncated, "truncated")
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "record.json.gz").write_bytes(gzip.compress(b"[" * 100_000 + b"]" * 100_000))
    _refused(deep, "not JSON")
    # A bomb: the bound on the expanded size holds (lowered here, so that the test stays
    # small; the shipped bound is EXPANDED_LIMIT).
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    (bomb / "record.json.gz").write_bytes(gzip.compress(b" " * (1 << 20)))
    saved = module.EXPANDED_LIMIT
    module.EXPANDED_LIMIT = 1 << 16
    try:
        with pytest.raises(module.RecordError, match="expands beyond"):
            module.read_record(bomb)
    finally:
        module.EXPANDED_LIMIT = saved


def test_the_record_reads_no_log_again_and_a_cached_audit_none(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record's curves are the workers', taken from the records parsed for the
    checks and kept in each org's cache entry: equal to the curves read from the logs
    with the org's round (as ``report`` from the logs reads them), and no log read for
    them, cold or from the cache (docs/report.md, "From an audit")."""
    from dataclasses import replace

    from mllog_check.html_report.curves import read_curve
    from mllog_check.html_report.record import from_audit
    from mllog_check.submission import package
    from mllog_check.submission.audit import run_audit

    collected = importlib.import_module("mllog_check.html_report.collect")  # not collect()
    rounds = [corpus / "v4.1", corpus / "hpc-v2.0"]
    base = corpus.resolve()
    cache = tmp_path / "cache"
    cold = run_audit(rounds, jobs=1, cache_dir=cache)
    read: list[tuple[str, str, str]] = []
    real = collected.read_curves
    monkeypatch.setattr(
        collected, "read_curves", lambda items, jobs: read.extend(items) or real(items, jobs)
    )
    data = from_audit(cold, base, [str(r) for r in rounds], 1)
    assert data.runs and set(data.curves) == {r["path"] for r in data.runs}
    assert read == []
    for run in data.runs[:: max(1, len(data.runs) // 40)]:  # every 40th: as the logs give
        path = data.absolute(run["path"])
        expected = read_curve(path, run["benchmark"], cold.org_rounds[run["org"]])
        assert data.curves[run["path"]] == replace(expected, path=path)
    # From the cache: no log parsed, by the checks or for the record.
    parsed: list[str] = []
    monkeypatch.setattr(package, "parse_file", lambda p, *a, **k: parsed.append(str(p)))
    cached = run_audit(rounds, jobs=1, cache_dir=cache)
    assert parsed == [] and _spilled(cached.curves) == _spilled(cold.curves)
    assert from_audit(cached, base, [str(r) for r in rounds], 1).curves == data.curves
    assert read == []


def _spilled(spill: Any) -> dict[str, tuple[str, str]]:
    """An audit's curves as its temporary file holds them: path -> (benchmark, JSON)."""
    return {path: (spill.benchmark(path), spill.text(path)) for path in spill}


def test_a_report_of_orgs_reads_no_log_again_for_its_curves(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report from the logs of a round takes each run's curve from the worker that
    checked its org, as the audit's record does: no log is parsed a second time, and
    each curve is the one the log gives (docs/report.md, "Where the numbers come from")."""
    from dataclasses import replace

    curves = importlib.import_module("mllog_check.html_report.curves")
    collected = importlib.import_module("mllog_check.html_report.collect")
    read: list[str] = []
    real = curves.parse_file
    monkeypatch.setattr(curves, "parse_file", lambda p, *a, **k: (read.append(p), real(p))[1])
    data = collected.collect([str(corpus / "v4.1")], jobs=1)
    assert data.runs and set(data.curves) == {r["path"] for r in data.runs}
    assert read == []
    for run in data.runs[:: max(1, len(data.runs) // 20)]:
        path = data.absolute(run["path"])
        expected = curves.read_curve(path, run["benchmark"], "4.1.0")
        assert data.curves[run["path"]] == replace(expected, path=path)
