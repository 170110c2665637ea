"""Every corpus log's ``check`` output, dumped or compared: proof that a change of the
engine or of the check path (docs/design.md, memory) left every verdict as it was.

    python benchmarks/check_equivalence.py dump OUT.jsonl [--strict] [--content]
    python benchmarks/check_equivalence.py compare OLD.jsonl NEW.jsonl

``dump`` checks each result log of the corpus ($MLLOG_CORPUS or ../shared/corpus, every
round, HPC included) with ``check_paths`` (the library call behind ``check``) in the
``mllog_check`` that Python imports (run it once with PYTHONPATH pointing at an old
checkout, once with this one) and writes one JSON line per log: the exit code, the
messages, and each verdict with every problem. ``compare`` reports the logs whose lines
differ and exits 1 if any do. ``--content`` hides the round folders of the paths, so that
each log's round is chosen from its content (the corpus is filed by round). ``dump``
also says how many logs the streamed check handed back to the check that holds every
record (``rules/stream.py``), where that module exists.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    configured = os.environ.get("MLLOG_CORPUS")
    return Path(configured) if configured else ROOT.parent / "shared" / "corpus"


def dump(out: Path, strict: bool, content: bool) -> int:
    from mllog_check import rounds
    from mllog_check.checking import check_paths
    from mllog_check.errors import MllogCheckError

    if content:
        rounds.from_path = lambda *args, **kwargs: None
    walked = _count_walks(content)

    logs = sorted(p for p in corpus_dir().rglob("result_*.txt*") if p.is_file())
    with open(out, "w", encoding="utf-8") as stream:
        for log in logs:
            try:
                run = check_paths([str(log)], strict=strict)
            except MllogCheckError as err:
                line: dict[str, Any] = {"log": str(log), "error": str(err)}
            else:
                line = {
                    "log": str(log),
                    "exit": run.exit_code,
                    "messages": run.lines(verbose=True),
                    "verdicts": [
                        {
                            "passed": v.passed,
                            "division": v.division,
                            "benchmark": v.benchmark,
                            "ruleset": v.ruleset,
                            "source": v.ruleset_source,
                            "problems": [
                                [p.path, p.line, p.column, p.rule, str(p.severity), p.message]
                                for p in v.problems
                            ],
                        }
                        for v in run.verdicts
                    ],
                }
            stream.write(json.dumps(line, sort_keys=True, default=repr) + "\n")
    print(f"{len(logs)} logs checked into {out}")
    if walked:
        print(f"streamed: {walked['exact']} logs, checked again holding records: {walked['again']}")
    return 0


def _count_walks(content: bool) -> dict[str, int]:
    """Counts of the streamed check's outcomes (empty before rules/stream.py existed)."""
    try:
        from mllog_check.rules import stream
    except ImportError:
        return {}
    if content:
        stream.from_path = lambda *args, **kwargs: None
    counts = {"exact": 0, "again": 0}
    verdict = stream.Walk.verdict

    def counted(self: Any, *args: Any) -> Any:
        done = verdict(self, *args)
        counts["exact" if done is not None else "again"] += 1
        return done

    stream.Walk.verdict = counted  # type: ignore[method-assign,assignment]
    return counts


def compare(old: Path, new: Path) -> int:
    def read(path: Path) -> dict[str, str]:
        lines = path.read_text(encoding="utf-8").splitlines()
        return {json.loads(line)["log"]: line for line in lines}

    before, after = read(old), read(new)
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for log in differ[:20]:
        print(f"differs: {log}")
    problems = sum(
        len(v["problems"]) for x in before.values() for v in json.loads(x).get("verdicts", [])
    )
    print(
        f"{len(before)} logs before, {len(after)} after, {problems} problems before; "
        f"{len(differ)} differ"
    )
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    dumping = sub.add_parser("dump")
    dumping.add_argument("out", type=Path)
    dumping.add_argument("--strict", action="store_true")
    dumping.add_argument("--content", action="store_true", help="choose rounds by content")
    comparing = sub.add_parser("compare")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        return dump(args.out, args.strict, args.content)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
