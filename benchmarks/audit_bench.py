"""Wall time of `mllog-check audit` vs the official tools over the orgs of a round.

    python benchmarks/audit_bench.py [--corpus ../shared/corpus] [--round v1.0]
    python benchmarks/audit_bench.py --round v5.1 --summarizer   # a whole current round
    python benchmarks/audit_bench.py --record    # every Training round together (v0.5-v5.1)

With --record: `mllog-check audit <corpus>` (the results repository root: every round
together) against the time to read the same bytes (the floor: every file of the Training
round folders read, split into lines and searched for the marker, in this process, warm
cache, best of 3), the throughput against the issue's target (the whole published record,
about 5 GB, in 30 s), and the peak memory (largest process) of one round against all of
them: memory must stay flat in the number of rounds.

With --summarizer the official side is what an analyst runs to get the audit's answers
for every org: the package checker (verdicts) and the result summarizer (scores), one
call each per org, on a fresh copy of the round (both write scaling.json into the tree;
the summarizer also rewrites or deletes published ones); no DLRM scenario then (from
v3.0 the benchmark is dlrm_dcnv2, which the official tools check).

With --whole: `mllog-check audit <corpus> --jobs 2` (every round, Training and HPC,
audited together, for real) cold without the cache, cold filling a fresh cache, and
again from that cache (a re-audit of unchanged orgs); then the first round alone and
every round, cold, for memory. Each figure: wall time, CPU time and peak memory (summed
PSS) of the process tree (benchmarks/proctree.py), medians of --repeats; with the
bytes audited, the throughput and what it means for the whole published Training record (5.7 GB),
cost being linear in bytes.

With --stages: the floor of the design, per byte. Every result log of the Training rounds
of the corpus, in this process, CPU time, best of --repeats: read (the bytes, split into
lines, the marker searched), parsed (``parse_file``), and parsed and checked against
the round's compliance rules (``rules.check_log``: the official checker's work, no
package, score or anomaly stage); then what each costs per GB and for the whole published
Training record (5.7 GB), against the audit's goal there (45 s on 2 cores: 90 CPU s).

With --copies N: a record-sized tree made of the corpus, each org N times under its round
(`<Org>_c0` .. `<Org>_c<N-1>`, hard links into a temp folder, copies where links cannot
be made): N=7 gives about 20,000 result logs, the published Training record's count.
Every copy of a run is a re-used run, so the anomaly tables are far larger than the
record's: a worst case for the parent's rows. Audited with --jobs 2 cold filling a
fresh cache, then re-audited from it (--repeats times): wall, CPU and peak memory.

Runs, in this order and in the same process environment:
1. `mllog-check audit <corpus>/<round> --jobs 1` and `--jobs 2` (outputs in a temp folder);
2. `python -m mlperf_logging.package_checker <Org> training 1.0.0` for every org of the
   round, one after the other, on a temporary COPY of the round (the official tool writes
   scaling.json and its log into the tree it checks).
Prints both wall times and the ratio. The official tool's exit status and crashes are
shown too: 4.1.x raises KeyError 'dlrm' on closed DLRM folders and stops there, so a
second scenario runs BOTH tools on a copy of the round without its DLRM folders, where
the official tool checks everything it is given.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 20.0  # a whole round at least 20x faster than the official tools (README.md)
# The whole published Training record (about 5 GB) in 30 s: a throughput of bytes/s.
RECORD_BYTES, RECORD_SECONDS = 5e9, 30.0


def _timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    tail = (done.stderr.strip().splitlines() or [""])[-1]
    return elapsed, done.returncode, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--round", default="v1.0")
    parser.add_argument("--ruleset", default=None, help="default: from the round (v5.1: 5.1.0)")
    parser.add_argument(
        "--summarizer",
        action="store_true",
        help="official side: package checker + result summarizer per org",
    )
    parser.add_argument(
        "--record", action="store_true", help="every Training round together vs the read floor"
    )
    parser.add_argument(
        "--whole", action="store_true", help="the corpus audited whole: cold, cached, memory"
    )
    parser.add_argument(
        "--stages", action="store_true", help="read, parse, parse+rules per GB: the floor"
    )
    parser.add_argument(
        "--copies", type=int, default=0, help="a tree of N copies of every org: re-audit"
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.copies:
        _copies(args.corpus, args.copies, args.repeats)
        return
    if args.stages:
        _stages(args.corpus, args.repeats)
        return
    if args.whole:
        _whole(args.corpus, args.repeats)
        return
    if args.record:
        _record(args.corpus)
        return
    args.ruleset = args.ruleset or args.round.lstrip("v") + ".0"
    round_dir = args.corpus / args.round
    if not round_dir.is_dir():
        sys.exit(f"no corpus round at {round_dir}")
    orgs = sorted(p.name for p in round_dir.iterdir() if (p / "results").is_dir())
    size = sum(f.stat().st_size for f in round_dir.rglob("*") if f.is_file())
    print(f"round {args.round}: {len(orgs)} orgs ({', '.join(orgs)}), {size / 1e6:.1f} MB")
    if args.summarizer:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / args.round
            shutil.copytree(round_dir, copy, symlinks=True)
            print("\n== the whole round: official package checker + result summarizer per org")
            _compare(round_dir, copy, orgs, args.ruleset, Path(tmp), summarizer=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.round
        shutil.copytree(round_dir, copy, symlinks=True)
        print("\n== the whole round (the official tool crashes on DLRM folders)")
        _compare(round_dir, copy, orgs, args.ruleset, Path(tmp))
        trimmed = Path(tmp) / "no-dlrm" / args.round
        skip = shutil.ignore_patterns("dlrm")
        shutil.copytree(round_dir, trimmed, symlinks=True, ignore=skip)
        print("\n== the round without DLRM folders (both tools on the same copy, ours first)")
        _compare(trimmed, trimmed, orgs, args.ruleset, Path(tmp))


def _compare(
    ours_root: Path,
    official_root: Path,
    orgs: list[str],
    ruleset: str,
    tmp: Path,
    summarizer: bool = False,
) -> None:
    ours = {}
    for jobs in (1, 2):
        cmd = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
        cmd += [str(ours_root), "--ruleset", ruleset, "--jobs", str(jobs)]
        cmd += ["--out", str(tmp / f"out{jobs}")]
        # Median of 3: the machine is shared; the official tool (minutes) runs once.
        runs = sorted(_timed(cmd) for _ in range(3))
        ours[jobs], code, _ = runs[1]
        shown = ", ".join(f"{r[0]:.2f}" for r in runs)
        print(
            f"mllog-check audit --jobs {jobs}: median {ours[jobs]:.2f} s of {shown} (exit {code})"
        )
    official = 0.0
    tools = ["package_checker"] + (["result_summarizer"] if summarizer else [])
    for org in orgs:
        for tool in tools:
            cmd = [sys.executable, "-m", f"mlperf_logging.{tool}", org, "training", ruleset]
            elapsed, code, tail = _timed(cmd, cwd=official_root)
            official += elapsed
            print(f"official {tool} {org}: {elapsed:.2f} s (exit {code}) {tail[:80]}")
    print(f"official total (sequential, one call per org and tool): {official:.2f} s")
    for jobs, seconds in sorted(ours.items()):
        ratio = official / seconds
        met = "met" if ratio >= TARGET else "NOT met"
        print(
            f"ratio official / mllog-check audit --jobs {jobs}: {ratio:.1f}x "
            f"(target {TARGET:g}x: {met})"
        )


def _training_rounds(corpus: Path) -> list[Path]:
    """The Training round folders of a results root (its MLPerf HPC rounds, which the
    audit of the root also reads, are another record: docs/hpc.md)."""
    from mllog_check.rounds import registry
    from mllog_check.submission.audit import expand_repositories

    found = expand_repositories([corpus])[0]
    return [p for p in found if not (r := registry().find(p.name)) or not r.is_hpc]


def _read_floor(rounds: list[Path]) -> tuple[int, float]:
    """Bytes of every file of the rounds, and the best time to read, split and search them."""
    files = [f for r in rounds for f in sorted(r.rglob("*")) if f.is_file() and not f.is_symlink()]
    best, size = float("inf"), 0
    for _ in range(3):
        start = time.perf_counter()
        size = 0
        for f in files:
            data = f.read_bytes()
            size += len(data)
            sum(1 for line in data.split(b"\n") if b":::ML" in line)
        best = min(best, time.perf_counter() - start)
    return size, best


def _peak(cmd: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (kB, the largest process: the parent or a worker)."""
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], capture_output=True, check=False); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True)
    seconds, rss = done.stdout.split()
    return float(seconds), int(rss)


def _record(corpus: Path) -> None:
    rounds = _training_rounds(corpus)
    size, floor = _read_floor(rounds)
    print(
        f"{len(rounds)} Training rounds ({rounds[0].name}-{rounds[-1].name}), {size / 1e6:.1f} MB"
    )
    print(f"read floor (read, split lines, find the marker): {floor:.2f} s")
    base = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in (1, 2):
            folders = [str(r) for r in rounds]
            cmd = [*base, *folders, "--jobs", str(jobs), "--out", f"{tmp}/all{jobs}"]
            runs = sorted(_peak(cmd) for _ in range(3))
            seconds, rss = runs[1]
            rate = size / seconds
            goal = RECORD_BYTES / RECORD_SECONDS
            print(
                f"audit of the whole record --jobs {jobs}: median {seconds:.2f} s "
                f"({', '.join(f'{r[0]:.2f}' for r in runs)}), {rate / 1e6:.1f} MB/s, "
                f"{seconds / floor:.1f}x the read floor; peak {rss / 1024:.0f} MB; "
                f"target {goal / 1e6:.0f} MB/s (5 GB in 30 s): "
                f"{'met' if rate >= goal else 'NOT met'}"
            )
        one = [*base, str(rounds[-1]), "--jobs", "2", "--out", f"{tmp}/one"]
        _, rss_one = _peak(one)
        print(
            f"peak memory: one round ({rounds[-1].name}) {rss_one / 1024:.0f} MB, all "
            f"{len(rounds)} rounds {rss / 1024:.0f} MB ({rss / rss_one:.2f}x)"
        )


# The whole published Training record (training_results_v0.5-v5.1): 5.7 GB, 21,801 logs.
WHOLE_RECORD_BYTES = 5.7e9


def _whole(corpus: Path, repeats: int) -> None:
    from proctree import Measured, run

    size = sum(f.stat().st_size for f in corpus.rglob("*") if f.is_file() and not f.is_symlink())
    logs = sum(1 for _ in corpus.rglob("result_*.txt"))
    base = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
    print(f"corpus {corpus}: {size / 1e6:.0f} MB, {logs} result logs")

    def median(runs: list[Measured]) -> Measured:
        return sorted(runs, key=lambda m: m.wall)[len(runs) // 2]

    def show(what: str, m: Measured) -> None:
        print(
            f"{what}: wall {m.wall:.1f} s, CPU {m.cpu:.1f} s, peak {m.peak_mb:.0f} MB "
            f"(exit {m.code}); {size / 1e6 / m.wall:.1f} MB/s wall, "
            f"{size / 1e6 / m.cpu:.1f} MB per CPU s",
            flush=True,
        )

    with tempfile.TemporaryDirectory() as tmp:
        out = ["--jobs", "2", "--out", f"{tmp}/out"]
        cold, filling, cached = [], [], []
        for i in range(repeats):  # interleaved: the machine is shared
            cold.append(run([*base, str(corpus), *out, "--no-cache"]))
            folder = f"{tmp}/cache{i}"
            filling.append(run([*base, str(corpus), *out, "--cache-dir", folder]))
            cached.append(run([*base, str(corpus), *out, "--cache-dir", folder]))
        show("cold, --no-cache", median(cold))
        show("cold, filling the cache", median(filling))
        show("re-audit from the cache", median(cached))
        m = median(cold)
        record = WHOLE_RECORD_BYTES / (size / m.cpu)
        print(
            f"the whole record (5.7 GB) at this cost: {record:.0f} CPU s, "
            f"{record / 2:.0f} s wall on 2 cores if both stay busy"
        )
        rounds = expand_rounds(corpus)
        first = run([*base, str(rounds[0]), *out, "--no-cache"])
        print(
            f"memory: one round ({rounds[0].name}) {first.peak_mb:.0f} MB, all {len(rounds)} "
            f"rounds {m.peak_mb:.0f} MB ({m.peak_mb / first.peak_mb:.2f}x)"
        )


def _stages(corpus: Path, repeats: int) -> None:
    from mllog_check import rules
    from mllog_check.parsing import parse_file
    from mllog_check.rounds import registry

    logs = []
    for folder in _training_rounds(corpus):
        rnd = registry().find(folder.name)
        for log in sorted(folder.rglob("result_*.txt")):
            if log.is_file() and not log.is_symlink() and rnd is not None:
                logs.append((log, rnd))
    size = sum(log.stat().st_size for log, _ in logs)
    checked = [(log, rnd) for log, rnd in logs if rnd.has("rules")]
    checked_size = sum(log.stat().st_size for log, _ in checked)

    def read() -> None:
        for log, _ in logs:
            sum(1 for line in log.read_bytes().split(b"\n") if b":::ML" in line)

    def parse() -> None:
        for log, _ in logs:
            parse_file(log)

    def parse_and_check() -> None:
        for log, rnd in checked:
            rules.check_log(parse_file(log), rnd)

    parse_and_check()  # the rounds' rules loaded once, as in a worker
    budget = 2 * 45 / (WHOLE_RECORD_BYTES / 1e9)  # CPU s per GB the goal allows
    print(
        f"{len(logs)} Training result logs, {size / 1e6:.0f} MB ({checked_size / 1e6:.0f} MB "
        f"in rounds with compliance rules); goal: {budget:.1f} CPU s per GB"
    )
    for name, stage, nbytes in (
        ("read, split, marker found", read, size),
        ("parsed", parse, size),
        ("parsed + compliance rules", parse_and_check, checked_size),
    ):
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            stage()
            best = min(best, time.process_time() - start)
        per_gb = best / (nbytes / 1e9)
        record = per_gb * WHOLE_RECORD_BYTES / 1e9
        print(
            f"{name}: {best:.2f} CPU s, {per_gb:.1f} CPU s per GB, the record "
            f"{record:.0f} CPU s ({record / 2:.0f} s on 2 cores; {per_gb / budget:.2f}x the goal)",
            flush=True,
        )


def _copies(corpus: Path, copies: int, repeats: int) -> None:
    from proctree import run

    with tempfile.TemporaryDirectory(prefix="mllog-record-") as tmp:
        tree = Path(tmp) / "record"
        for folder in expand_rounds(corpus):
            for org in sorted(p for p in folder.iterdir() if (p / "results").is_dir()):
                for k in range(copies):
                    target = tree / folder.name / f"{org.name}_c{k}"
                    shutil.copytree(org, target, symlinks=True, copy_function=_link_or_copy)
        logs = sum(1 for _ in tree.rglob("result_*.txt"))
        print(f"{tree}: {copies} copies of every org, {logs} result logs", flush=True)
        base = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
        cache = ["--cache-dir", f"{tmp}/cache", "--jobs", "2", "--out", f"{tmp}/out"]
        runs = [("cold, filling the cache", run([*base, str(tree), *cache]))]
        runs += [
            ("re-audit from the cache", run([*base, str(tree), *cache])) for _ in range(repeats)
        ]
        for what, m in runs:
            print(
                f"{what}: wall {m.wall:.1f} s, CPU {m.cpu:.1f} s, peak {m.peak_mb:.0f} MB "
                f"(exit {m.code})",
                flush=True,
            )


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def expand_rounds(corpus: Path) -> list[Path]:
    from mllog_check.submission.audit import expand_repositories

    return expand_repositories([corpus])[0]


if __name__ == "__main__":
    main()
