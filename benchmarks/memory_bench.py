"""Peak memory of parsing one big log: streaming (parse, iter_records) vs holding records.

    python benchmarks/memory_bench.py [--size-mb 232] [--limit-mib 256]

Builds a log of at least --size-mb MB in a temporary folder by concatenating the
corpus's v0.7-v2.0 result logs ($MLLOG_CORPUS or ../shared/corpus), then runs each
method in a fresh Python process and reports that process's peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``) and its speed:

- ``mllog-check parse FILE`` (JSON lines to /dev/null) and ``parse -q FILE``
- the library iterator ``mllog_check.iter_records(FILE)``
- ``parse_file(FILE)``, which holds every record (the reference, not bounded)

Exit 1 when a streaming method goes over --limit-mib.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=232.0)
    parser.add_argument("--limit-mib", type=float, default=256.0)
    parser.add_argument("--no-reference", action="store_true", help="skip parse_file")
    args = parser.parse_args()
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
