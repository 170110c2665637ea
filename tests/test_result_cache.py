"""The result cache of package and audit (mllog_check/resultcache.py, docs/audit.md
"Cache"): a cached report is the cold report, byte for byte in every output format; an
org changed in any file's size or mtime, or a new build, is checked again; the cache
folder and its entries are never used through a link; a corrupt or planted entry is a
miss; --no-cache writes nothing."""

from __future__ import annotations

import io
import os
import pickle
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import read_oracle

from mllog_check import resultcache
from mllog_check.cli.group import cli
from mllog_check.reporters import AUDIT, PACKAGE, offered, write
from mllog_check.resultcache import CacheError, open_cache
from mllog_check.submission import package as package_module
from mllog_check.submission.audit import run_audit, write_outputs
from mllog_check.submission.package import cached_check_package

OLD = 1_500_000_000  # an mtime long before any test: not "racy" (resultcache.RACY_NS)


def _package_orgs(corpus: Path, oracle: Path, passing: bool = False) -> list[Path]:
    """Orgs the official package checker judged (oracle rows; ``passing``: passed),
    present in the corpus, smallest first."""
    orgs = []
    for table in sorted(oracle.glob("package_*.csv")):
        for row in read_oracle(oracle, table.name):
            folder = corpus / row["version"] / row["org"]
            if passing and row.get("official_verdict") != "pass":
                continue
            if (folder / "results").is_dir():
                orgs.append(folder)
    assert orgs, "no org with a package oracle row in the corpus"
    return sorted(set(orgs), key=lambda p: (_bytes(p), str(p)))


def _bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _rendered(report: object, command: str) -> dict[str, str]:
    out = {}
    for fmt in offered(command):
        stream = io.StringIO()
        write(fmt, command, report, stream)
        out[fmt] = stream.getvalue()
    return out


def _forbid_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hit must not check anything: the check itself raises from here on."""

    def no_check(*args: object, **kwargs: object) -> None:
        raise AssertionError("checked again although cached")

    monkeypatch.setattr(package_module, "check_package", no_check)


def _old_copy(org: Path, tmp_path: Path) -> Path:
    """A copy of ``org`` whose files all carry an old mtime (cacheable)."""
    copy = tmp_path / org.parent.name / org.name
    shutil.copytree(org, copy, symlinks=True)
    for path in [copy, *copy.rglob("*")]:
        os.utime(path, (OLD, OLD), follow_symlinks=False)
    return copy


# --- cached equals cold --------------------------------------------------------------


@pytest.mark.corpus
def test_cached_package_reports_are_the_cold_ones_in_every_format(
    corpus: Path, oracle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    orgs = _package_orgs(corpus, oracle)
    picked = [orgs[0], orgs[len(orgs) // 2]]
    cache = open_cache(tmp_path / "cache")
    cold = {o: _rendered(cached_check_package(o, cache=cache), PACKAGE) for o in picked}
    assert cache.misses == len(picked) and cache.hits == 0
    _forbid_checks(monkeypatch)
    for org in picked:
        assert _rendered(cached_check_package(org, cache=cache), PACKAGE) == cold[org], org
    assert cache.hits == len(picked)


def _small_rounds(corpus: Path, oracle: Path) -> list[Path]:
    """The round folders of the judged orgs, smallest first."""
    rounds = {org.parent for org in _package_orgs(corpus, oracle)}
    return sorted(rounds, key=lambda p: (_bytes(p), str(p)))


@pytest.mark.corpus
@pytest.mark.parametrize("together", [1, 2], ids=["one-round", "two-rounds"])
def test_cached_audit_is_the_cold_audit_in_every_format_and_file(
    together: int, corpus: Path, oracle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The smallest judged rounds, audited whole (alone, or together: paths then start
    # with the round's folder): cold, then from the cache.
    rounds = _small_rounds(corpus, oracle)[:together]
    assert len(rounds) == together
    target = rounds[0] if together == 1 else rounds
    folder = tmp_path / "cache"
    cold = run_audit(target, jobs=1, cache_dir=folder)
    assert [p.name for p in folder.glob("*.bin")], "the cold audit stored nothing"
    _forbid_checks(monkeypatch)
    warm = run_audit(target, jobs=1, cache_dir=folder)
    assert _rendered(warm, AUDIT) == _rendered(cold, AUDIT)
    files = [write_outputs(r, tmp_path / name) for r, name in ((cold, "cold"), (warm, "warm"))]
    assert len(files[0]) == len(files[1]) > 0
    for a, b in zip(*files, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


@pytest.mark.corpus
def test_cli_audit_twice_is_the_same_output_and_no_cache_writes_nothing(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    round_dir = _small_rounds(corpus, oracle)[0]
    runner = CliRunner()
    outputs = []
    for run, extra in enumerate((["--no-cache"], [], [])):
        args = ["audit", str(round_dir), "--jobs", "1", "--format", "json"]
        args += ["--out", str(tmp_path / f"out{run}"), "--cache-dir", str(tmp_path / "c")]
        done = runner.invoke(cli, args + extra)
        assert done.exit_code in (0, 1), done.output
        outputs.append(done.stdout)
        entries = list((tmp_path / "c").glob("*.bin"))
        assert bool(entries) == (run > 0), "--no-cache wrote an entry, or a run stored none"
    assert outputs[0] == outputs[1] == outputs[2]
    for name in sorted(p.name for p in (tmp_path / "out0").iterdir()):
        cold = (tmp_path / "out0" / name).read_bytes()
        assert cold == (tmp_path / "out2" / name).read_bytes(), name


# --- invalidation ------------------------------------------------------------------


def _result_logs(org: Path) -> list[Path]:
    return sorted((org / "results").rglob("result_*.txt"))


@pytest.mark.corpus
def test_a_changed_mtime_size_or_build_checks_the_org_again(
    corpus: Path, oracle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    org = _old_copy(_package_orgs(corpus, oracle, passing=True)[0], tmp_path)
    cache = open_cache(tmp_path / "cache")
    first = cached_check_package(org, cache=cache)
    assert first.passed, "the judged org should pass before the planted fault"
    cached_check_package(org, cache=cache)
    assert (cache.hits, cache.misses) == (1, 1)

    log = _result_logs(org)[0]
    os.utime(log, (OLD + 60, OLD + 60))  # mtime only
    cached_check_package(org, cache=cache)
    assert (cache.hits, cache.misses) == (1, 2)

    # A planted fault: the run_stop line removed. Its size changes; the report must too.
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(x for x in lines if '"run_stop"' not in x), encoding="utf-8")
    os.utime(log, (OLD + 60, OLD + 60))  # the same mtime as the entry before
    after = cached_check_package(org, cache=cache)
    assert (cache.hits, cache.misses) == (1, 3)
    assert _rendered(after, PACKAGE) != _rendered(first, PACKAGE)

    # Another build (a version, or any of the tool's own files) never trusts the entries.
    monkeypatch.setattr(cache, "build", [*cache.build, "another version"])
    cached_check_package(org, cache=cache)
    assert (cache.hits, cache.misses) == (1, 4)


@pytest.mark.corpus
def test_a_file_modified_during_the_racy_window_is_not_stored(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    org = _old_copy(_package_orgs(corpus, oracle)[0], tmp_path)
    _result_logs(org)[0].touch()  # now: its mtime could survive an edit unseen
    cache = open_cache(tmp_path / "cache")
    cached_check_package(org, cache=cache)
    assert not list((tmp_path / "cache").glob("*.bin"))


@pytest.mark.corpus
def test_an_org_holding_a_link_is_never_cached(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    org = _old_copy(_package_orgs(corpus, oracle)[0], tmp_path)
    (org / "systems" / "elsewhere.json").symlink_to(tmp_path / "outside.json")
    cache = open_cache(tmp_path / "cache")
    cached_check_package(org, cache=cache)
    cached_check_package(org, cache=cache)
    assert cache.hits == 0
    assert not list((tmp_path / "cache").glob("*.bin"))


# --- links and hostile entries -----------------------------------------------------


@pytest.mark.corpus
def test_a_linked_cache_folder_is_refused(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "cache"
    link.symlink_to(target)
    with pytest.raises(CacheError, match="symbolic link"):
        open_cache(link)
    org = _package_orgs(corpus, oracle)[0]
    done = CliRunner().invoke(cli, ["package", str(org), "--cache-dir", str(link)])
    assert done.exit_code in (0, 1)
    assert "cache not used" in done.stderr
    assert list(target.iterdir()) == []


def _one_entry(cache_dir: Path) -> Path:
    entries = list(cache_dir.glob("*.bin"))
    assert len(entries) == 1
    return entries[0]


@pytest.mark.corpus
@pytest.mark.parametrize("damage", ["flipped", "truncated", "empty", "link", "folder"])
def test_a_corrupt_entry_is_a_miss_and_the_report_the_cold_one(
    damage: str, corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    org = _package_orgs(corpus, oracle)[0]
    cache = open_cache(tmp_path / "cache")
    cold = _rendered(cached_check_package(org, cache=cache), PACKAGE)
    entry = _one_entry(tmp_path / "cache")
    data = entry.read_bytes()
    entry.unlink()
    outside = tmp_path / "outside.bin"
    if damage == "flipped":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "link":  # an entry that is a link is not read, nor written through
        outside.write_bytes(data)
        entry.symlink_to(outside)
    else:
        entry.mkdir()
    assert _rendered(cached_check_package(org, cache=cache), PACKAGE) == cold
    assert cache.hits == 0
    if damage == "link":
        assert outside.read_bytes() == data  # replaced the link, not the file it names
        assert not entry.is_symlink()


class _Planted:
    """A payload that would run a command when unpickled without restriction."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch planted-by-cache",))


@pytest.mark.corpus
def test_a_planted_entry_with_a_valid_digest_runs_no_code(
    corpus: Path, oracle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    org = _package_orgs(corpus, oracle)[0]
    cache = open_cache(tmp_path / "cache")
    cold = _rendered(cached_check_package(org, cache=cache), PACKAGE)
    key = _one_entry(tmp_path / "cache").name.removesuffix(".bin")
    # The entry rewritten as the cache writes one (header, digest), holding the payload.
    cache.put(key, _Planted())
    assert b"system" in (tmp_path / "cache" / f"{key}.bin").read_bytes()
    assert _rendered(cached_check_package(org, cache=cache), PACKAGE) == cold
    assert not (tmp_path / "planted-by-cache").exists()
    with pytest.raises(pickle.UnpicklingError):
        resultcache._Restricted(io.BytesIO(pickle.dumps(_Planted()))).load()


def test_the_default_folder_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLLOG_CHECK_CACHE_DIR", str(tmp_path / "named"))
    assert resultcache.default_folder() == tmp_path / "named"
    monkeypatch.delenv("MLLOG_CHECK_CACHE_DIR")
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert resultcache.default_folder() == tmp_path / "xdg" / "mllog-check"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # invalid by the XDG spec: ignored
    assert resultcache.default_folder() == Path.home() / ".cache" / "mllog-check"


@pytest.mark.corpus
def test_cli_package_with_no_cache_writes_nothing_and_without_it_reuses(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    org = _package_orgs(corpus, oracle)[0]
    folder = tmp_path / "cache"
    args = ["package", str(org), "--format", "json", "--cache-dir", str(folder)]
    runner = CliRunner()
    cold = runner.invoke(cli, [*args, "--no-cache"])
    assert not list(folder.glob("*.bin"))
    stored = runner.invoke(cli, args)
    assert len(list(folder.glob("*.bin"))) == 1
    again = runner.invoke(cli, args)
    assert cold.exit_code == stored.exit_code == again.exit_code
    assert cold.stdout == stored.stdout == again.stdout
