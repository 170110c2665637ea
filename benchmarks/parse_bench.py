"""Parsing speed over the whole corpus: raw floor, mllog-check, official parser.

    python benchmarks/parse_bench.py [--repeat N] [--no-official] [--breakdown]

Corpus: $MLLOG_CORPUS or ../shared/corpus. Figures are MB/s and records/s per group
of rounds (v0.5, v0.6, v0.7-v2.0, v2.1-v5.1: every published Training round), each
the best of N passes; the methods are interleaved in every pass so that machine noise
hits them alike. The raw floor
reads the bytes, splits lines and looks for the marker (what any parser must do).
The official parser (mlperf-logging, benchmark-only dependency) has no v0.5 reader.
--breakdown adds where the time goes: each step any eager parser of these files must
take, timed alone on the same files against the floor (docs/parser.md, Speed).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mllog_check import parse_file

ROOT = Path(__file__).resolve().parent.parent
GROUPS = {
    "v0.5": ("v0.5",),
    "v0.6": ("v0.6",),
    "v0.7-v2.0": ("v0.7", "v1.0", "v1.1", "v2.0"),
    # rank-prefixed `0: :::MLLOG` lines, power logs beside the results from v4.0
    "v2.1-v5.1": ("v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1"),
}


def corpus_files(corpus: Path) -> dict[str, list[Path]]:
    groups: dict[str, list[Path]] = {}
    for name, rounds in GROUPS.items():
        files: list[Path] = []
        for round_ in rounds:
            files.extend(
                p
                for p in sorted((corpus / round_).rglob("*"))
                if p.is_file() and not p.is_symlink()
            )
        groups[name] = files
    return groups


def raw_floor(path: Path) -> int:
    with open(path, "rb") as handle:
        data = handle.read()
    return sum(1 for line in data.split(b"\n") if b":::ML" in line)


def ours(path: Path) -> int:
    return len(parse_file(path).records)


def official_for(group: str) -> Callable[[Path], int] | None:
    if group == "v0.5":
        return None  # mlperf-logging has no v0.5 parser
    try:
        from mlperf_logging.compliance_checker import mlp_parser
    except ImportError:
        return None
    ruleset = "0.6.0" if group == "v0.6" else "1.0.0"

    def parse(path: Path) -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                records, _errors = mlp_parser.parse_file(str(path), ruleset=ruleset)
            except Exception:  # the v0.7 Alibaba time_s files crash it (KeyError)
                return 0
        return len(records)

    return parse


def timed(method: Callable[[Path], int], files: list[Path]) -> tuple[float, int]:
    start = time.perf_counter()
    records = sum(method(p) for p in files)
    return time.perf_counter() - start, records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes; the best is kept")
    parser.add_argument("--no-official", action="store_true", help="skip the official parser")
    parser.add_argument("--breakdown", action="store_true", help="time each step vs the floor")
    args = parser.parse_args()
    configured = os.environ.get("MLLOG_CORPUS")
    corpus = Path(configured) if configured else ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        print(f"corpus not found: {corpus} (set MLLOG_CORPUS)", file=sys.stderr)
        return 2
    print(f"corpus {corpus}, best of {args.repeat} interleaved passes\n")
    header = (
        f"{'rounds':<10} {'files':>5} {'MB':>6} {'records':>8} | {'raw MB/s':>8} "
        f"{'ours MB/s':>9} {'ours rec/s':>10} {'official MB/s':>13} | "
        f"{'ours/raw':>8} {'ours/official':>13}"
    )
    print(header)
    print("-" * len(header))
    totals = {"raw": 0.0, "ours": 0.0, "official": 0.0, "official_mb": 0.0, "ours_off": 0.0}
    all_mb = all_records = 0.0
    for group, files in corpus_files(corpus).items():
        if not files:
            continue
        size = sum(p.stat().st_size for p in files) / 1e6
        methods: dict[str, Callable[[Path], int]] = {"raw": raw_floor, "ours": ours}
        official = None if args.no_official else official_for(group)
        if official is not None:
            methods["official"] = official
        best: dict[str, float] = {}
        records = 0
        for _ in range(args.repeat):
            for name, method in methods.items():
                seconds, count = timed(method, files)
                best[name] = min(best.get(name, seconds), seconds)
                if name == "ours":
                    records = count
        for name in ("raw", "ours"):
            totals[name] += best[name]
        if "official" in best:
            totals["official"] += best["official"]
            totals["official_mb"] += size
            totals["ours_off"] += best["ours"]
        all_mb += size
        all_records += records
        print(row(group, len(files), size, records, best))
    print("-" * len(header))
    mb_off = totals["official_mb"]
    mine = all_mb / totals["ours"]
    text = f"{'all':<10} {'':>5} {all_mb:6.1f} {int(all_records):8d} | "
    text += f"{all_mb / totals['raw']:8.1f} {mine:9.1f} {all_records / totals['ours']:10.0f} "
    if totals["official"]:
        # the official column covers v0.6+ only (no v0.5 parser): compare like with like
        off = mb_off / totals["official"]
        ratio = totals["official"] / totals["ours_off"]  # same files (v0.6+), same MB
        text += f"{off:13.1f} | {totals['raw'] / totals['ours']:8.2f} {ratio:13.1f}"
    else:
        text += f"{'-':>13} | {totals['raw'] / totals['ours']:8.2f} {'-':>13}"
    print(text)
    if args.breakdown:
        files = [p for group in corpus_files(corpus).values() for p in group]
        breakdown(files, args.repeat)
    return 0


def breakdown(files: list[Path], repeat_: int) -> None:
    """Each step of an eager parse timed alone on the same files, best of N, in seconds
    and in floors: reading, splitting and selecting marker lines (C-level, as the
    scanner does), decoding every :::MLLOG payload with orjson (no record built), and
    the whole parse."""
    from itertools import compress, repeat

    import orjson

    datas = [p.read_bytes() for p in files]
    marked = [
        list(compress(lines, map(bytes.__contains__, lines, repeat(b":::ML"))))
        for lines in (data.split(b"\n") for data in datas)
    ]
    payloads = [line[line.rfind(b":::MLLOG ") + 9 :] for lines in marked for line in lines]
    payloads = [p for p in payloads if _decodes(orjson.loads, p)]

    def best(step: Callable[[], object]) -> float:
        seconds = []
        gc.disable()  # as the parser does (scanner.scan_chunks): no collector passes
        try:
            for _ in range(repeat_):
                start = time.perf_counter()
                step()
                seconds.append(time.perf_counter() - start)
        finally:
            gc.enable()
        return min(seconds)

    floor = best(lambda: [raw_floor(p) for p in files])
    steps = {
        "read the bytes": lambda: [p.read_bytes() for p in files],
        "split lines, select marker lines": lambda: [
            list(compress(lines, map(bytes.__contains__, lines, repeat(b":::ML"))))
            for lines in (data.split(b"\n") for data in datas)
        ],
        f"orjson.loads of {len(payloads)} :::MLLOG payloads": lambda: list(
            map(orjson.loads, payloads)
        ),
        "the whole parse (mllog-check)": lambda: [ours(p) for p in files],
    }
    print(f"\nwhere the time goes (best of {repeat_}; floor {floor:.3f} s):")
    for name, step in steps.items():
        seconds = best(step)
        print(f"  {name:<45} {seconds:7.3f} s  {seconds / floor:5.2f} floors")


def _decodes(loads: Callable[[bytes], object], payload: bytes) -> bool:
    try:
        loads(payload)
    except ValueError:
        return False
    return True


def row(group: str, files: int, size: float, records: int, best: dict[str, float]) -> str:
    raw, mine = size / best["raw"], size / best["ours"]
    text = f"{group:<10} {files:5d} {size:6.1f} {records:8d} | {raw:8.1f} {mine:9.1f} "
    text += f"{records / best['ours']:10.0f} "
    if "official" in best:
        off = size / best["official"]
        return text + f"{off:13.1f} | {mine / raw:8.2f} {mine / off:13.1f}"
    return text + f"{'-':>13} | {mine / raw:8.2f} {'-':>13}"


if __name__ == "__main__":
    sys.exit(main())
