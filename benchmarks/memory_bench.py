"""Peak memory of parsing one big log: streaming (parse, iter_records) vs holding records;
with ``--check``, peak memory of ``mllog-check check`` as a log grows in records.

    python benchmarks/memory_bench.py [--size-mb 232] [--limit-mib 256]
    python benchmarks/memory_bench.py --check [--records 100000,1000000,4000000]

Builds a log of at least --size-mb MB in a temporary folder by concatenating the
corpus's v0.7-v2.0 result logs ($MLLOG_CORPUS or ../shared/corpus), then runs each
method in a fresh Python process and reports that process's peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and its speed:

- ``mllog-check parse FILE`` (JSON lines to /dev/null) and ``parse -q FILE``
- the library iterator ``mllog_check.iter_records(FILE)``
- ``parse_file(FILE)``, which holds every record (the reference, not bounded)

Exit 1 when a streaming method goes over --limit-mib.

``--check`` builds, for each N of ``--records``, a log of N records from a real corpus
log (``CHECK_LOG``: its header, its training block of epoch and evaluation records
repeated, its end), runs ``mllog-check check`` on it in a fresh process and prints that
process's peak RSS, and the ratio of the largest N's to the smallest's: memory flat in
the number of records (docs/design.md, memory) is a ratio near 1 (the goal: < 1.2).
Exit 1 when the ratio is 1.2 or more.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = ("v0.7", "v1.0", "v1.1", "v2.0")

PROBE = """
import resource, sys, time
from mllog_check import iter_records, parse_file
from mllog_check.cli import main
method, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
count = 0
if method == "parse":
    try:
        main(["parse", path])
    except SystemExit:
        pass
elif method == "parse-q":
    try:
        main(["parse", "-q", path])
    except SystemExit:
        pass
elif method == "check":
    try:
        main(["check", "--ruleset", "5.1.0", path])
    except SystemExit:
        pass
elif method == "iter_records":
    stream = iter_records(path)
    for _ in stream:
        count += 1
else:
    count = len(parse_file(path).records)
seconds = time.perf_counter() - start
rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.stderr.write(f"RESULT {rss_kib} {seconds} {count}\\n")
"""


def corpus_dir() -> Path:
    configured = os.environ.get("MLLOG_CORPUS")
    return Path(configured) if configured else ROOT.parent / "shared" / "corpus"


def build_log(corpus: Path, target: Path, size_mb: float) -> int:
    logs = [p for r in ROUNDS for p in sorted((corpus / r).rglob("result_*.txt")) if p.is_file()]
    if not logs:
        raise SystemExit(f"no result logs under {corpus} (set MLLOG_CORPUS)")
    written = 0
    with open(target, "wb") as out:
        while written < size_mb * 1e6:
            for log in logs:
                data = log.read_bytes()
                if not data.endswith(b"\n"):
                    data += b"\n"
                out.write(data)
                written += len(data)
                if written >= size_mb * 1e6:
                    break
    return written


def measure(method: str, path: Path) -> tuple[float, float, int]:
    """(peak RSS MiB, seconds, records counted) of one method in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, method, str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    line = next((x for x in done.stderr.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"{method} failed:\n{done.stderr[-2000:]}")
    _, rss_kib, seconds, count = line.split()
    return int(rss_kib) / 1024, float(seconds), int(count)


CHECK_LOG = "v5.1/GigaComputing/results/G894-AD1_pytorch/retinanet/result_0.txt"
FLAT_LIMIT = 1.2  # peak RSS of the largest log over the smallest's


def repeated_log(source: Path, target: Path, records: int) -> int:
    """A log of at least ``records`` lines: ``source``'s header, its training block (the
    first epoch or block start up to run_stop) repeated, its end. Returns the lines."""
    lines = source.read_bytes().splitlines(keepends=True)
    start = next(i for i, x in enumerate(lines) if b'"epoch_start"' in x or b'"block_start"' in x)
    stop = next(i for i, x in enumerate(lines) if b'"run_stop"' in x)
    block = b"".join(lines[start:stop])
    times = max(1, -(-(records - len(lines)) // (stop - start)))
    with open(target, "wb") as out:
        out.write(b"".join(lines[:start]))
        for _ in range(times):
            out.write(block)
        out.write(b"".join(lines[stop:]))
    return len(lines) + times * (stop - start) - (stop - start)


def check_memory(counts: list[int]) -> int:
    source = corpus_dir() / CHECK_LOG
    if not source.is_file():
        raise SystemExit(f"no {CHECK_LOG} under {corpus_dir()} (set MLLOG_CORPUS)")
    print(f"mllog-check check of {CHECK_LOG} with its training block repeated")
    print(f"{'records':>10} {'MB':>8} {'peak RSS MiB':>12} {'seconds':>8}")
    peaks = []
    with tempfile.TemporaryDirectory(prefix="mllog-memory-") as tmp:
        log = Path(tmp) / "result_0.txt"
        for count in counts:
            lines = repeated_log(source, log, count)
            size = log.stat().st_size
            rss, seconds, _ = measure("check", log)
            peaks.append(rss)
            print(f"{lines:>10} {size / 1e6:>8.0f} {rss:>12.1f} {seconds:>8.1f}")
            log.unlink()
    ratio = peaks[-1] / peaks[0]
    verdict = "flat" if ratio < FLAT_LIMIT else "NOT flat"
    print(f"peak RSS {counts[-1]:,} / {counts[0]:,} records: {ratio:.2f}x ({verdict}, goal < 1.2)")
    return 0 if ratio < FLAT_LIMIT else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=232.0)
    parser.add_argument("--limit-mib", type=float, default=256.0)
    parser.add_argument("--no-reference", action="store_true", help="skip parse_file")
    parser.add_argument("--check", action="store_true", help="check's memory by records")
    parser.add_argument("--records", default="100000,1000000,4000000", help="with --check")
    args = parser.parse_args()
    if args.check:
        return check_memory([int(n) for n in args.records.split(",")])
    with tempfile.TemporaryDirectory(prefix="mllog-memory-") as tmp:
        log = Path(tmp) / "result_0.txt"
        size = build_log(corpus_dir(), log, args.size_mb)
        print(f"log: {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB), concatenated corpus logs")
        methods = ["parse", "parse-q", "iter_records"]
        if not args.no_reference:
            methods.append("parse_file")
        print(f"{'method':<28} {'peak RSS MiB':>12} {'seconds':>8} {'MB/s':>6}  records")
        over = []
        for method in methods:
            rss, seconds, count = measure(method, log)
            label = {
                "parse": "mllog-check parse (jsonl)",
                "parse-q": "mllog-check parse -q",
                "iter_records": "iter_records (library)",
                "parse_file": "parse_file (holds records)",
            }[method]
            shown = str(count) if count else "-"
            print(f"{label:<28} {rss:>12.0f} {seconds:>8.1f} {size / 1e6 / seconds:>6.1f}  {shown}")
            if method != "parse_file" and rss > args.limit_mib:
                over.append(method)
        verdict = "over" if over else "within"
        print(f"streaming methods {verdict} the {args.limit_mib:.0f} MiB limit")
        return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
