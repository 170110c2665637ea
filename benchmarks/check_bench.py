"""Wall time of `mllog-check check` vs the official compliance checker on corpus rounds.

    python benchmarks/check_bench.py [--corpus ../shared/corpus] [--sample N] [--repeat R]
    python benchmarks/check_bench.py --rounds v5.0,v5.1     # the v5.x corpus mode

`--rounds` names the corpus rounds to time (default v1.0), each with its own ruleset.

1. Round: `mllog-check check <corpus>/v1.0 --format json` (one process for every
   result log) against `python -m mlperf_logging.compliance_checker --usage training
   --ruleset 1.0.0 FILE`, one process per file, one after the other, as users run it.
   `--sample N` takes every k-th file for both tools (N files) for a quick run; the
   default is every file. The verdicts of both are compared on the way.
2. Single file: start-to-exit time of `mllog-check check FILE` vs the official command
   on the same file (the median-sized log of the round), median of R interleaved runs,
   wall and CPU (user + system: steadier on a busy machine). The target (docs/design.md) is
   2x on wall time.
3. ``--hook``: the pre-commit hook's workload, ``mllog-check check FILE`` (the round from
   the file's folder, as the hook finds it) against the official checker with that
   round's ruleset, on every small log: the ``--smallest N`` smallest result logs of each
   corpus round the official checker has rules for, plus every log in a Dell-named org
   folder (their system names once sent the decoder down the slow path), each under
   256 kB. R interleaved pairs per log; CPU time (user + system) of each process tree
   (``os.wait4``: the child and what it waited for). It prints each log's ratio
   (official CPU / ours, medians) and the WORST log, the goal being 3x on every one.
mllog-check runs as a user installs it: a wheel built from this checkout, installed in a
fresh venv (an editable install adds its import hook, about 15 ms, to every start;
``--editable`` times the current install instead). Both run with bytecode caching on
after one warm-up run each, in the same run; only ratios are meaningful.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import installs  # noqa: E402  (tests/installs.py, shared with tests/test_wheel.py)

OURS: list[str] = []  # the command that runs mllog-check, set in main()


def _official(ruleset: str) -> list[str]:
    command = [sys.executable, "-m", "mlperf_logging.compliance_checker"]
    return [*command, "--usage", "training", "--ruleset", ruleset]


def _ours() -> list[str]:
    return OURS


def _installed(work: Path, editable: bool) -> list[str]:
    """mllog-check as a user has it: the wheel of this checkout in a fresh venv."""
    if editable:
        found = shutil.which("mllog-check")
        return [found] if found else [sys.executable, "-m", "mllog_check.cli"]
    wheel = installs.build_wheel(ROOT, work)
    python = installs.install_wheel(wheel, work / "venv")
    return [str(python.parent / "mllog-check")]


# As installed for a user: bytecode caching on (this sandbox sets PYTHONDONTWRITEBYTECODE,
# which would make both tools recompile every module on every start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done


def _timed_cpu(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _timed(cmd, cwd)[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tree_cpu(cmd: list[str], cwd: Path) -> float:
    """CPU seconds (user + system) of one run's process tree (the child and every
    descendant it waited for)."""
    child = subprocess.Popen(
        cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4
    return usage.ru_utime + usage.ru_stime


# A "small" log for the hook: under the size where check decodes without orjson.
SMALL_BYTES = 256 * 1024
# Corpus rounds -> the official checker's (usage, ruleset); rounds it has no rules for
# (v0.5, HPC v0.7) are left out.
HPC_PREFIX = "hpc-v"


def _official_ruleset(round_dir: Path) -> tuple[str, str] | None:
    name = round_dir.name
    usage = "hpc" if name.startswith(HPC_PREFIX) else "training"
    version = name.removeprefix(HPC_PREFIX).removeprefix("v") + ".0"
    import mlperf_logging.compliance_checker as official

    folder = Path(official.__file__).parent / f"{usage}_{version}"
    return (usage, version) if folder.is_dir() else None


def _hook_files(corpus: Path, smallest: int) -> list[tuple[Path, str, str]]:
    """(log, usage, ruleset): each round's smallest logs and every Dell-named org's, small."""
    chosen: dict[Path, tuple[str, str]] = {}
    for round_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        official = _official_ruleset(round_dir)
        if official is None:
            continue
        logs = [
            f
            for f in round_dir.glob("*/results/*/*/result_*.txt")
            if f.stat().st_size < SMALL_BYTES
        ]
        logs.sort(key=lambda f: (f.stat().st_size, str(f)))
        for f in logs[:smallest]:
            chosen[f] = official
        for f in logs:
            if "dell" in f.relative_to(round_dir).parts[0].lower():
                chosen[f] = official
    return [(f, *chosen[f]) for f in sorted(chosen)]


def _hook(corpus: Path, smallest: int, repeat: int, work: Path) -> None:
    files = _hook_files(corpus, smallest)
    print(f"hook: {len(files)} small logs (< {SMALL_BYTES // 1024} kB), {repeat} pairs each")
    rows = []
    for f, usage, ruleset in files:
        official = [sys.executable, "-m", "mlperf_logging.compliance_checker"]
        official += ["--usage", usage, "--ruleset", ruleset, str(f)]
        ours_cmd = [*_ours(), "check", str(f)]
        _tree_cpu(ours_cmd, work)  # warm: bytecode, page cache
        _tree_cpu(official, work)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(repeat):  # interleaved so that load changes hit both alike
            ours.append(_tree_cpu(ours_cmd, work))
            theirs.append(_tree_cpu(official, work))
        mine, other = statistics.median(ours), statistics.median(theirs)
        rows.append((other / mine, mine, other, f))
        name = f.relative_to(corpus)
        print(
            f"  {other / mine:5.2f}x  ours {mine * 1000:5.1f} ms  official {other * 1000:6.1f} ms"
            f"  {f.stat().st_size / 1e3:6.1f} kB  {name}",
            flush=True,
        )
    rows.sort(key=lambda row: row[0])
    ratio, mine, other, worst = rows[0]
    median = statistics.median(r[0] for r in rows)
    print(
        f"worst: {ratio:.2f}x ({mine * 1000:.1f} vs {other * 1000:.1f} ms CPU) on "
        f"{worst.relative_to(corpus)} ({worst.stat().st_size / 1e3:.0f} kB); "
        f"median {median:.2f}x over {len(rows)} logs"
    )
    dell = [r for r in rows if "dell" in str(r[3].relative_to(corpus)).lower()]
    if dell:
        print(f"worst Dell-named: {dell[0][0]:.2f}x on {dell[0][3].relative_to(corpus)}")


def _files(round_dir: Path, sample: int | None) -> list[Path]:
    files = sorted(round_dir.glob("*/results/*/*/result_*.txt"))
    if sample and sample < len(files):
        step = len(files) / sample
        files = [files[int(i * step)] for i in range(sample)]
    return files


def _ruleset(round_dir: Path) -> str:
    return round_dir.name.removeprefix("v") + ".0"


def _round(files: list[Path], round_dir: Path, work: Path) -> tuple[float, float]:
    whole = len(files) == len(_files(round_dir, None))
    targets = [str(round_dir)] if whole else [str(f) for f in files]
    ruleset = _ruleset(round_dir)
    command = [*_ours(), "check", "--ruleset", ruleset, "--format", "json", *targets]
    ours_s, done = _timed(command, work)
    verdicts = {
        str(Path(f["path"]).resolve()): f["verdict"] for f in json.loads(done.stdout)["files"]
    }
    official_s = 0.0
    agree = 0
    for f in files:
        seconds, result = _timed([*_official(ruleset), str(f)], work)
        official_s += seconds
        official = "pass" if result.returncode == 0 else "fail"
        agree += verdicts.get(str(f.resolve())) == official
    print(f"round {round_dir.name}: {len(files)} result logs ({'all' if whole else 'sample'})")
    print(f"  mllog-check (1 process)          {ours_s:8.2f} s")
    print(f"  official (1 process per file)    {official_s:8.2f} s")
    print(f"  ratio                            {official_s / ours_s:8.1f}x")
    print(f"  verdicts agreeing                {agree}/{len(files)}")
    return ours_s, official_s


def _single(file: Path, repeat: int, work: Path, ruleset: str) -> None:
    ours: list[tuple[float, float]] = []
    official: list[tuple[float, float]] = []
    for _ in range(repeat):  # interleaved so that load changes hit both alike
        ours.append(_timed_cpu([*_ours(), "check", "--ruleset", ruleset, str(file)], work))
        official.append(_timed_cpu([*_official(ruleset), str(file)], work))
    wall = [statistics.median(t[0] for t in times) for times in (ours, official)]
    cpu = [statistics.median(t[1] for t in times) for times in (ours, official)]
    size = file.stat().st_size / 1e3
    print(f"single file {file.relative_to(file.parents[4])} ({size:.0f} kB), median of {repeat}:")
    rows = (("mllog-check check FILE", wall[0], cpu[0]), ("official checker FILE", wall[1], cpu[1]))
    for label, w, c in rows:
        print(f"  {label:<31}  {w * 1000:8.0f} ms  (cpu {c * 1000:.0f} ms)")
    print(f"  {'ratio':<31}  {wall[1] / wall[0]:8.1f}x  (cpu {cpu[1] / cpu[0]:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--sample", type=int, default=None, help="check N files only")
    parser.add_argument("--repeat", type=int, default=11, help="single-file runs each")
    parser.add_argument("--rounds", default="v1.0", help="corpus rounds, comma-separated")
    parser.add_argument(
        "--editable", action="store_true", help="time the current install, not a fresh wheel"
    )
    parser.add_argument("--hook", action="store_true", help="every small log, worst ratio")
    parser.add_argument("--smallest", type=int, default=3, help="--hook: logs per round")
    parser.add_argument("--ours", help="time this mllog-check command instead of a build")
    args = parser.parse_args()
    if args.hook:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            OURS[:] = [args.ours] if args.ours else _installed(work, args.editable)
            _hook(args.corpus, args.smallest, args.repeat, work)
        return
    rounds = [args.corpus / name.strip() for name in args.rounds.split(",")]
    missing = [str(r) for r in rounds if not r.is_dir()]
    if missing:
        sys.exit(f"corpus round not found: {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:  # the official tool writes its log in cwd
        work = Path(tmp)
        OURS[:] = _installed(work, args.editable)
        total_ours = total_official = 0.0
        for round_dir in rounds:
            files = _files(round_dir, args.sample)
            ruleset = _ruleset(round_dir)
            # Warm-up of both: bytecode written, mllog-check's validated-rules cache filled.
            _timed([*_ours(), "check", "--ruleset", ruleset, str(files[0])], work)
            _timed([*_official(ruleset), str(files[0])], work)
            ours_s, official_s = _round(files, round_dir, work)
            total_ours += ours_s
            total_official += official_s
        if len(rounds) > 1:
            print(f"all rounds: ratio {total_official / total_ours:.1f}x")
        for round_dir in rounds:  # each round's median-sized log
            by_size = sorted(_files(round_dir, None), key=lambda f: f.stat().st_size)
            _single(by_size[len(by_size) // 2], args.repeat, work, _ruleset(round_dir))


if __name__ == "__main__":
    main()
