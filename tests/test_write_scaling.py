"""``package --write-scaling`` writes the scaling.json files the official package checker
writes (mlperf-logging 4.1.68, run here on a copy: it writes into the tree it checks),
byte for byte, and never through a link, into a pipe or over a differing published file
(docs/package.md, "Writing scaling.json")."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import corpus_dir, has_module, require

from mllog_check.cli import cli
from mllog_check.rounds import Round, RoundError, parse_round

NAME = "scaling.json"


def _normalizing(rnd: Round) -> bool:
    """A round whose official package checker runs the normalizing RCP step."""
    from mllog_check.results.scoring import scoring_for

    has_data = rnd.has("rules") and rnd.has("rcp")
    return has_data and scoring_for(rnd.version).rcp_method == "normalized"


def _size(org: Path) -> int:
    return sum(p.stat().st_size for p in (org / "results").rglob("*") if p.is_file())


def _chosen() -> list[tuple[str, str]]:
    """Per round whose official tools normalize, the smallest org (bytes of results/)
    whose published tree carries a scaling.json: a committee-normalized result, so one
    the official checker may write again, within a couple of minutes for every round."""
    corpus = corpus_dir()
    if corpus is None:
        return []
    out = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        try:
            rnd = parse_round(folder.name)
        except RoundError:
            continue
        if not _normalizing(rnd):
            continue
        orgs = [o for o in folder.iterdir() if any((o / "results").rglob(NAME))]
        if orgs:
            out.append((folder.name, min(orgs, key=_size).name))
    return out


CHOSEN = _chosen()


def _copy(org: Path, dest: Path) -> Path:
    """A copy of the org in a folder named as its round (the round is read from it),
    without its published scaling.json files."""
    target = dest / org.parent.name / org.name
    shutil.copytree(org, target, symlinks=True)
    for published in target.rglob(NAME):
        published.unlink()
    return target


def _files(org: Path) -> dict[str, bytes]:
    return {str(p.relative_to(org)): p.read_bytes() for p in org.rglob(NAME)}


def _official(org: Path, rnd: Round) -> tuple[dict[str, bytes], bool]:
    """The files the official package checker writes into a copy; whether it crashed."""
    usage, _, ruleset = rnd.ruleset.partition("-")
    command = [sys.executable, "-m", "mlperf_logging.package_checker", org.name, usage, ruleset]
    done = subprocess.run(command, cwd=org.parent, capture_output=True, text=True, timeout=600)
    return _files(org), "Traceback (most recent call last)" in done.stderr


def _ours(org: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["package", str(org), "-q", "--write-scaling", *args])
    return done.exit_code, done.stderr


def test_orgs_are_chosen() -> None:
    require(corpus_dir() is not None, "real-log corpus not found")
    assert CHOSEN, "no round that normalizes has an org with a published scaling.json"


@pytest.mark.parametrize(("round_name", "org_name"), CHOSEN)
def test_the_official_files_byte_for_byte(round_name: str, org_name: str, tmp_path: Path) -> None:
    require(has_module("mlperf_logging"), "mlperf_logging (the oracle) is not installed")
    corpus = corpus_dir()
    assert corpus is not None
    published = corpus / round_name / org_name
    rnd = parse_round(round_name)
    official, crashed = _official(_copy(published, tmp_path / "official"), rnd)
    mine = _copy(published, tmp_path / "ours")
    code, err = _ours(mine)
    ours = _files(mine)
    assert code in (0, 1), err
    lines = [ln for ln in err.splitlines() if "--write-scaling" in ln]
    assert len([ln for ln in lines if ": wrote {" in ln]) == len(ours), err
    if not crashed:
        assert ours == official, err
    else:  # it stops at its first crash: the folders it reached before it are written
        assert {k: ours.get(k) for k in official} == official, err
        assert all(ours[k] == (published / k).read_bytes() for k in set(ours) - set(official))
    # A second run on the written tree: every file is there as the official one.
    code, err = _ours(mine)
    assert all(": unchanged (" in ln for ln in err.splitlines() if f"{NAME}: " in ln), err
    assert _files(mine) == ours


@functools.cache
def _hostile_org() -> tuple[Path, tuple[str, ...]]:
    """The smallest chosen org with at least two files to write, and their paths."""
    from mllog_check.submission.package import check_package
    from mllog_check.submission.scaling_files import planned

    corpus = corpus_dir()
    assert corpus is not None
    for round_name, org_name in sorted(CHOSEN, key=lambda c: _size(corpus / c[0] / c[1])):
        org = corpus / round_name / org_name
        files = [p.path for p in planned(check_package(org))]
        if len(files) >= 2:
            return org, tuple(str(p.relative_to(org)) for p in files)
    raise AssertionError("no chosen org has two scaling.json files to write")


def _tree(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A copy of that org without its scaling.json, and the files ours writes there."""
    require(bool(CHOSEN), "real-log corpus not found")
    published, files = _hostile_org()
    org = _copy(published, tmp_path / "plain")
    return org, [org / f for f in files]


def test_nothing_is_written_without_the_option(tmp_path: Path) -> None:
    org, files = _tree(tmp_path)
    done = CliRunner().invoke(cli, ["package", str(org), "-q"])
    assert done.exit_code in (0, 1) and not any(p.exists() for p in files)
    assert "--write-scaling" not in done.stderr


def test_a_link_out_of_the_tree_is_not_written_through(tmp_path: Path) -> None:
    org, files = _tree(tmp_path)
    outside = tmp_path / "bashrc"
    outside.write_text("echo hello\n")
    files[0].symlink_to(outside)
    code, err = _ours(org)
    assert code == 2, err
    assert outside.read_text() == "echo hello\n" and files[0].is_symlink()
    refused = [ln for ln in err.splitlines() if str(files[0]) in ln]
    assert len(refused) == 1 and "not written" in refused[0], err
    assert all(p.is_file() and not p.is_symlink() for p in files[1:])  # the others are


def test_a_pipe_in_its_place_is_refused_without_hanging(tmp_path: Path) -> None:
    org, files = _tree(tmp_path)
    os.mkfifo(files[0])
    code, err = _ours(org)
    assert code == 2 and "named pipe" in err, err


def test_a_read_only_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    org, files = _tree(tmp_path)
    folder = files[0].parent
    folder.chmod(0o555)
    if os.geteuid() == 0:  # root writes into a read-only folder: fail as the kernel would
        import mllog_check.outputs as outputs

        real_open = os.open

        # Every other os.open passes through as called (the result cache opens its
        # entries relative to its folder, with dir_fd).
        def guarded_open(path: str, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
            if "dir_fd" not in kwargs and Path(path).parent == folder and flags & os.O_WRONLY:
                raise PermissionError(13, "Permission denied", path)
            return real_open(path, flags, mode, **kwargs)

        monkeypatch.setattr(outputs.os, "open", guarded_open)
    try:
        code, err = _ours(org)
    finally:
        folder.chmod(0o755)
    assert code == 2 and "Permission denied" in err, err
    assert not files[0].exists()


def test_a_differing_published_file_is_kept_and_named(tmp_path: Path) -> None:
    org, files = _tree(tmp_path)
    files[0].write_text('{"scaling_factor": 1.5}')
    code, err = _ours(org)
    assert code in (0, 1), err
    assert files[0].read_text() == '{"scaling_factor": 1.5}'
    kept = [ln for ln in err.splitlines() if str(files[0]) in ln]
    assert len(kept) == 1 and "kept, not overwritten" in kept[0] and "1.5" in kept[0], err


def _plant(org: Path, stopped: Path, kind: str) -> None:
    system = org / "systems" / f"{stopped.parent.name}.json"
    if kind == "run_stop without status":
        log = sorted(stopped.glob("result_*.txt"))[0]
        lines = log.read_text("utf-8").splitlines(keepends=True)
        at = next(i for i, ln in enumerate(lines) if '"key": "run_stop"' in ln)
        lines[at] = lines[at].replace('"status": "success"', '"state": "success"')
        log.write_text("".join(lines), "utf-8")
    elif kind == "description missing":
        system.unlink()
    else:
        system.write_text("{not json", "utf-8")


@pytest.mark.parametrize(
    "kind", ["run_stop without status", "description missing", "description not JSON"]
)
def test_none_where_the_official_checker_stops(tmp_path: Path, kind: str) -> None:
    """Where the official package checker raises (MLP044) it writes no scaling.json: in
    the folder it stops on (its RCP step never runs), below a system whose description it
    cannot find, anywhere when a description is not JSON (it reads them all first).
    Every file it wrote before stopping is ours byte for byte."""
    require(has_module("mlperf_logging"), "mlperf_logging (the oracle) is not installed")
    org, files = _tree(tmp_path)
    stopped = files[0].parent
    _plant(org, stopped, kind)
    official_org = tmp_path / "official" / org.parent.name / org.name
    shutil.copytree(org, official_org, symlinks=True)
    official, crashed = _official(official_org, parse_round(org.parent.name))
    assert crashed
    code, err = _ours(org)
    ours = _files(org)
    assert code == 1, err  # MLP044: the official checker gives no verdict
    assert {k: ours.get(k) for k in official} == official
    expected = {str(f.relative_to(org)) for f in files}
    if kind == "run_stop without status":
        expected.discard(str(files[0].relative_to(org)))
    elif kind == "description missing":
        expected = {k for k in expected if not (org / k).is_relative_to(stopped.parent)}
    else:
        expected = set()
        assert not official and "stops outside the result folders" in err, err
    assert set(ours) == expected, err
