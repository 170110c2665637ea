"""`mllog-check package ORG` against the official `package_checker ORG` per org.

    python benchmarks/package_bench.py [--corpus ../shared/corpus] [--repeats 3]
    python benchmarks/package_bench.py --org hpc-v1.0/Fujitsu+RIKEN   # any corpus org

The orgs: every corpus org the oracle's package tables judged with the official
mlperf-logging 4.1.68 (oracle/package_*.csv; the v1.0 and v2.0 rows come from era tools
that 4.1.68 cannot replace), or those named with --org. For each org, in the same run and
interleaved (``--repeats`` rounds of: ours cold, official, ours cached):

- ours cold: `mllog-check package ORG --no-cache` (its default: the CPUs' worker
  processes where the org's logs are large enough; submission/parallel.py);
- ours cold in one process: the same with `-j 1`, for the wall time both cores save;
- official: `python -m mlperf_logging.package_checker ORG <usage> <ruleset>` on a fresh
  copy of the org inside a copy of its round folder (it writes scaling.json and a log
  into the tree it checks);
- ours cached: `mllog-check package ORG --cache-dir DIR`, DIR filled by one run before.

Each figure is the median CPU time of the process tree (benchmarks/proctree.py), and the
ratio official / ours is printed per org with its number of result logs; then the wall
times of ours cold with one process and with the default, and their ratio. Compile the
package first (`python -m compileall -q mllog_check`) and leave PYTHONDONTWRITEBYTECODE
unset, as an installed tool runs.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import sys
import tempfile
from pathlib import Path

from proctree import Measured, run

ROOT = Path(__file__).resolve().parent.parent


def _ours() -> list[str]:
    script = Path(sys.executable).parent / "mllog-check"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from mllog_check.cli import main; main()"]


def judged_orgs(corpus: Path) -> list[Path]:
    """Corpus orgs with an oracle package row from mlperf-logging 4.1.68."""
    oracle = corpus.parent / "oracle"
    found = []
    for table in sorted(oracle.glob("package_*.csv")):
        with open(table, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                org = corpus / row["version"] / row["org"]
                if "4.1.68" in row.get("tool", "") and (org / "results").is_dir():
                    found.append(org)
    return found


def official_args(org: Path) -> tuple[str, str]:
    """(usage, ruleset) of the official tools for an org's round folder."""
    from mllog_check.rounds import parse_round

    rnd = parse_round(org.parent.name)
    usage = "hpc" if rnd.is_hpc else "training"
    return usage, rnd.version.removeprefix("hpc-")


def _logs(org: Path) -> int:
    return sum(1 for _ in (org / "results").rglob("result_*.txt"))


def _median(runs: list[Measured]) -> Measured:
    return sorted(runs, key=lambda m: m.cpu)[len(runs) // 2]


def _median_wall(runs: list[Measured]) -> float:
    return sorted(m.wall for m in runs)[len(runs) // 2]


def bench(org: Path, repeats: int, tmp: Path) -> tuple[dict[str, Measured], dict[str, float]]:
    usage, ruleset = official_args(org)
    cache = tmp / "cache"
    ours = [*_ours(), "package", str(org)]
    run([*ours, "--cache-dir", str(cache)])  # fills the cache
    runs: dict[str, list[Measured]] = {"cold": [], "official": [], "cached": [], "one": []}
    for i in range(repeats):
        runs["cold"].append(run([*ours, "--no-cache"]))
        runs["one"].append(run([*ours, "--no-cache", "-j", "1"]))
        copy = tmp / f"copy{i}" / org.parent.name / org.name
        shutil.copytree(org, copy, symlinks=True)
        official = [sys.executable, "-m", "mlperf_logging.package_checker", str(copy)]
        runs["official"].append(run([*official, usage, ruleset], cwd=copy.parent))
        shutil.rmtree(tmp / f"copy{i}")
        runs["cached"].append(run([*ours, "--cache-dir", str(cache)]))
    medians = {kind: _median(found) for kind, found in runs.items()}
    walls = {kind: _median_wall(found) for kind, found in runs.items()}
    return medians, walls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--org", action="append", help="ROUND/ORG of the corpus (repeatable)")
    args = parser.parse_args()
    orgs = [args.corpus / o for o in args.org] if args.org else judged_orgs(args.corpus)
    if not orgs:
        sys.exit("no org to measure")
    print(
        "org | logs | official CPU s | ours cold CPU s | ratio | ours cached CPU s | ratio "
        "| wall -j 1 s | wall default s | gain"
    )
    for org in orgs:
        with tempfile.TemporaryDirectory() as tmp:
            got, walls = bench(org, args.repeats, Path(tmp))
        official, cold, cached = got["official"], got["cold"], got["cached"]
        print(
            f"{org.parent.name}/{org.name} | {_logs(org)} | {official.cpu:.2f} "
            f"(exit {official.code}) | {cold.cpu:.2f} (exit {cold.code}) | "
            f"{official.cpu / cold.cpu:.1f}x | {cached.cpu:.2f} | "
            f"{official.cpu / cached.cpu:.1f}x | {walls['one']:.2f} | {walls['cold']:.2f} | "
            f"{walls['one'] / walls['cold']:.2f}x",
            flush=True,
        )
    print(f"medians of {args.repeats} interleaved runs; CPU time of each process tree, wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
