"""Mutants of real logs, generated from the official rule files (docs/differences.md).

For every official rule file of a round (Training 0.6.0-6.1.0, HPC 1.0.0-3.0.0) that a
base log's chain reaches (common, division, benchmark, variant), every rule becomes
mutants of that base:

- a key with a ``REQ``: removed (with its ``AT_LEAST_ONE_OR`` alternatives) and repeated;
- a ``CHECK`` (or ``ATLEAST_ONE_CHECK``) comparing a field of the record with a literal:
  at the bound, just past it, and an allowed value; a wrong member for ``in [...]``; the
  field removed for ``'field' in v[...]``; another type for ``isinstance``;
- a check that reads the checker's state or the record's timestamp (sequencing: first or
  last occurrence, start before stop): the record moved to the start and to the end.

The official files are read as data: YAML with every scalar a string (as the official
loader), their Python expressions parsed with ``ast.parse`` and only literal operands
read (``ast.literal_eval`` on a constant node); nothing is evaluated or copied. Each
mutant names its rule as ``(round folder, file, key, kind)``: the unit the CI sample
covers (tests/test_mutants.py) and the full sweep counts (docs/differences.md).
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MLLOG = ":::MLLOG "
MLL = re.compile(r":::MLL ([\d.]+) ([A-Za-z0-9_]+) ?:\s+(.+)$")
# Keys whose records may be trimmed from a base beyond 3 (per-step losses and the like).
KEEP_OTHERS = 3
WRONG = "not_an_allowed_value"


@dataclass(frozen=True)
class Rule:
    """One rule of an official file: a REQ, or one expression of a CHECK."""

    folder: str  # training_5.1.0, hpc_3.0.0
    file: str  # the file's stem: common, closed_common, closed_bert, ...
    key: str
    kind: str  # req, check, atleast
    text: str  # the REQ value or the expression as written

    @property
    def name(self) -> str:
        return f"{self.folder}/{self.file}:{self.key}:{self.kind}:{self.text.strip()}"


@dataclass(frozen=True)
class Mutant:
    rule: Rule
    edit: str
    lines: tuple[str, ...]


# --- the official files, as data ---------------------------------------------------------


def official_rules(folder: Path) -> dict[str, list[Rule]]:
    """Each file's rules, by file stem."""
    found: dict[str, list[Rule]] = {}
    for path in sorted(folder.glob("*.yaml")):
        # Every scalar a string, a repeated mapping key the last, as the official loader.
        items = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or []
        rules: list[Rule] = []
        for item in items:
            spec = item.get("KEY") if isinstance(item, dict) else None
            if not isinstance(spec, dict) or "NAME" not in spec:
                continue
            key = spec["NAME"]
            if spec.get("REQ"):
                rules.append(Rule(folder.name, path.stem, key, "req", spec["REQ"]))
            checks = spec.get("CHECK") or []
            for text in [checks] if isinstance(checks, str) else checks:
                rules.append(Rule(folder.name, path.stem, key, "check", text))
            if spec.get("ATLEAST_ONE_CHECK"):
                rules.append(
                    Rule(folder.name, path.stem, key, "atleast", spec["ATLEAST_ONE_CHECK"])
                )
        found[path.stem] = rules
    return found


def _field(node: ast.AST) -> tuple[str, ...] | None:
    """``v['value']['BBOX']`` -> ("value", "BBOX"); None for anything else."""
    path: list[str] = []
    while isinstance(node, ast.Subscript):
        index = node.slice
        if not (isinstance(index, ast.Constant) and isinstance(index.value, str)):
            return None
        path.append(index.value)
        node = node.value
    if isinstance(node, ast.Name) and node.id == "v" and path:
        return tuple(reversed(path))
    return None


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)  # literals only: no name, call or operator
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def _past(bound: Any, up: bool) -> Any:
    """Just past a bound: the next integer, or a relative step of 1e-3 for a float."""
    if isinstance(bound, bool):
        return not bound
    if isinstance(bound, int):
        return bound + (1 if up else -1)
    step = max(abs(bound), 1e-3) * 1e-3
    return bound + (step if up else -step)


def _values(op: ast.cmpop, bound: Any) -> list[tuple[str, Any]]:
    """(label, value) to set the field to, for ``field <op> bound``."""
    numeric = isinstance(bound, (int, float)) and not isinstance(bound, bool)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        if numeric and math.isfinite(bound):
            wrong = [("past", _past(bound, True)), ("below", _past(bound, False))]
        elif isinstance(bound, bool):
            wrong = [("other", not bound)]
        else:
            wrong = [("other", f"{bound}_{WRONG}" if bound else WRONG)]
        return [("at", bound), *wrong]
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(bound, (list, tuple, set)):
        members = sorted(bound, key=repr)
        out: list[tuple[str, Any]] = [(f"member {m!r}", m) for m in members[:2]]
        numbers = [m for m in members if isinstance(m, (int, float)) and not isinstance(m, bool)]
        out.append(("wrong", _past(max(numbers), True) if numbers else WRONG))
        return out
    if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and numeric and math.isfinite(bound):
        up = isinstance(op, (ast.Lt, ast.LtE))  # past a maximum is above it
        return [("at", bound), ("past", _past(bound, up)), ("inside", _past(bound, not up))]
    return []


@dataclass(frozen=True)
class Edit:
    label: str
    field: tuple[str, ...] | None = None
    value: Any = None
    remove: bool = False
    move: bool = False


def edits(rule: Rule) -> list[Edit]:
    """The edits one rule asks for, from its text parsed as data."""
    if rule.kind == "req":
        return [Edit("remove"), Edit("repeat")]
    try:
        tree = ast.parse(rule.text.strip(), mode="eval")
    except SyntaxError:
        return [Edit("value", ("value",), WRONG)]
    found: list[Edit] = []
    stateful = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in ("s", "ll"):
            stateful = True
        if isinstance(node, ast.Call) and node.args and _field(node.args[0]):
            field = _field(node.args[0])
            found.append(Edit("another type", field, "x"))
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            field, ok, bound = _field(left), *_literal(right)
            if field is None:
                field, ok, bound = _field(right), *_literal(left)
                op = _FLIP.get(type(op), type(op))()
                if field is not None and ok and isinstance(op, (ast.In, ast.NotIn)):
                    # 'field' in v['metadata']: the field removed
                    if isinstance(bound, str):
                        found.append(Edit(f"without {bound}", (*field, bound), remove=True))
                    ok = False
            if field is not None and ok:
                for label, value in _values(op, bound):
                    found.append(Edit(f"{label} {value!r}", field, value))
            left = right
    if stateful:
        found += [Edit("first", move=True), Edit("last", move=True)]
    return found or [Edit("value", ("value",), WRONG)]


# --- logs ---------------------------------------------------------------------------------


@dataclass
class Record:
    payload: dict[str, Any]
    stamp: str | None = None  # a v0.6 (:::MLL) record's seconds, as written

    def line(self) -> str:
        if self.stamp is None:
            return MLLOG + json.dumps(self.payload)
        rest = {k: v for k, v in self.payload.items() if k != "key"}
        return f":::MLL {self.stamp} {self.payload['key']}: {json.dumps(rest)}"


def records(text: str) -> list[Record]:
    """The marker lines of a log, prefixes stripped (others dropped: no rule reads them)."""
    out: list[Record] = []
    for raw in text.splitlines():
        at = raw.rfind(MLLOG)
        if at >= 0:
            try:
                payload = json.loads(raw[at + len(MLLOG) :])
            except ValueError:
                continue
            if isinstance(payload, dict) and "key" in payload:
                out.append(Record(payload))
            continue
        at = raw.rfind(":::MLL ")
        m = MLL.match(raw[at:]) if at >= 0 else None
        if m:
            try:
                body = json.loads(m[3])
            except ValueError:
                continue
            if isinstance(body, dict):
                out.append(Record({"key": m[2], **body}, m[1]))
    return out


def division(base: list[Record], name: str) -> list[Record]:
    out = []
    for r in base:
        if r.payload.get("key") == "submission_division":
            r = Record({**r.payload, "value": name}, r.stamp)
        out.append(r)
    return out


def trim(base: list[Record], named: set[str]) -> list[Record]:
    """Keys no rule names kept to their first few records (bounded mutant size)."""
    seen: dict[str, int] = {}
    kept = []
    for r in base:
        key = r.payload["key"]
        seen[key] = seen.get(key, 0) + 1
        if key in named or seen[key] <= KEEP_OTHERS:
            kept.append(r)
    return kept


def _set(payload: dict[str, Any], field: tuple[str, ...], value: Any, remove: bool) -> bool:
    """Set (or remove) a field of a record the caller copied; False where it has none."""
    node: Any = payload
    for part in field[:-1]:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    if not isinstance(node, dict) or (field[-1] not in node and (remove or len(field) > 1)):
        return False
    if remove:
        del node[field[-1]]
    else:
        node[field[-1]] = value
    return True


def _copy(payload: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(payload))


def _alternatives(rule: Rule) -> set[str]:
    m = re.fullmatch(r"\s*AT_LEAST_ONE_OR\((.*)\)\s*", rule.text)
    return {a.strip() for a in m[1].split(",")} if m else set()


def apply(base: list[Record], rule: Rule, edit: Edit) -> list[Record] | None:
    """The mutated records, or None when the edit changes nothing in this base."""
    where = [i for i, r in enumerate(base) if r.payload.get("key") == rule.key]
    if rule.kind == "req" and edit.label == "remove":
        gone = {rule.key} | _alternatives(rule)
        out = [r for r in base if r.payload.get("key") not in gone]
        return out if len(out) < len(base) else None
    if not where:
        return None
    first = where[0]
    if rule.kind == "req":  # repeat: the same record again, right after it
        return [*base[: first + 1], base[first], *base[first + 1 :]]
    if edit.move:
        rest = base[:first] + base[first + 1 :]
        return [base[first], *rest] if edit.label == "first" else [*rest, base[first]]
    assert edit.field is not None
    # a CHECK runs on every record: the first is changed; an ATLEAST_ONE_CHECK holds when
    # one record passes it: all are changed.
    targets = where if rule.kind == "atleast" else [first]
    out = list(base)
    changed = False
    for i in targets:
        payload = _copy(base[i].payload)
        if _set(payload, edit.field, edit.value, edit.remove) and payload != base[i].payload:
            out[i] = Record(payload, base[i].stamp)
            changed = True
    return out if changed else None


def mutants(
    base: list[Record], rules: list[Rule], keep: Callable[[Rule, str], bool] | None = None
) -> Iterator[Mutant]:
    """Every rule's mutants of a base that change it (each distinct log once); ``keep``
    chooses by (rule, edit label) before a mutant is made."""
    seen: set[tuple[str, ...]] = set()
    for rule in rules:
        for edit in edits(rule):
            if keep is not None and not keep(rule, edit.label):
                continue
            out = apply(base, rule, edit)
            if out is None:
                continue
            lines = tuple(r.line() for r in out)
            if lines in seen:
                continue
            seen.add(lines)
            yield Mutant(rule, edit.label, lines)


# --- rounds, bases, chains ------------------------------------------------------------------


def folders(reference: Path) -> list[Path]:
    return sorted((p for p in reference.iterdir() if p.is_dir()), key=_order)


def _order(folder: Path) -> tuple[str, tuple[int, ...]]:
    usage, version = folder.name.split("_")
    return usage, tuple(int(x) for x in version.split("."))


def ruleset_of(folder: str) -> str:
    usage, version = folder.split("_")
    return version if usage == "training" else f"hpc-{version}"


def corpus_round(folder: str) -> str:
    usage, version = folder.split("_")
    short = "v" + version.rsplit(".", 1)[0]
    return short if usage == "training" else f"hpc-{short}"


def _passed(corpus: Path, round_name: str) -> set[str]:
    """Files the official checker passes (the oracle; its era verdict where it has one)."""
    table = corpus.parent / "oracle" / f"compliance_{round_name}.csv"
    if not table.exists():
        return set()
    with table.open(encoding="utf-8") as f:
        return {
            row["file"]
            for row in csv.DictReader(f)
            if (row.get("era_verdict") or row.get("official_verdict")) == "pass"
        }


def corpus_bases(corpus: Path, folder: str) -> dict[str, Path]:
    """benchmark -> the smallest closed corpus log of the round the official checker
    passes (the smallest of all when it passes none)."""
    round_dir = corpus / corpus_round(folder)
    if not round_dir.is_dir():
        return {}
    passed = _passed(corpus, corpus_round(folder))
    by: dict[str, list[Path]] = {}
    for path in round_dir.rglob("result_*.txt"):
        rel = path.relative_to(round_dir)
        if "results" not in rel.parts or "pruned_results" in rel.parts or "power" in rel.parts:
            continue
        if path.parent.parent.name == "results":  # a v0.7 log outside a benchmark folder
            continue
        by.setdefault(path.parent.name, []).append(path)
    out = {}
    for benchmark, paths in sorted(by.items()):

        def rank(p: Path, paths: list[Path] = paths) -> tuple[bool, int, str]:
            rel = str(p.relative_to(round_dir))
            return (rel not in passed, p.stat().st_size, rel)

        out[benchmark] = min(paths, key=rank)
    return out


def stable_share(name: str, share: float) -> bool:
    """A deterministic coin: the same mutant is in or out of the sample on every run."""
    digest = hashlib.sha256(name.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


# Bases whose own official verdict is a documented difference (docs/differences.md): their
# mutants are counted, not compared.
DOCUMENTED = {
    # v0.6 MiniGo: common.yaml does not list minigo, so 4.1.68 fails every MiniGo log.
    ("training_0.6.0", "minigo"): "docs/differences.md, Rounds v0.6-v2.0",
}


# Differences that are official defects (docs/differences.md, "Mutant parity"):
# (round folder, rule file, key, edit) -> the evidence. Our verdict is a failure there too;
# only the official crash is not predicted.
DEFECTS = {
    # A negative batch makes the POST store a complex learning rate (x ** 0.5); the next
    # CHECK that raises makes the checker json.dumps its state for the message, which
    # raises TypeError: the checker stops instead of failing the log.
    ("training_6.1.0", "closed_qwen35_397b_grpo", "global_batch_size", "past -1"): (
        "TypeError: Object of type complex is not JSON serializable"
    ),
}


def defect(folder: str, rule: Rule, edit: str, theirs: str) -> bool:
    """A documented official defect: the crash it names, on that mutant."""
    found = DEFECTS.get((folder, rule.file, rule.key, edit))
    return found is not None and theirs.endswith(found)


# Documented gaps of ours (docs/differences.md): round folder -> why. v0.6's state
# machine (epochs, evaluations and blocks opened and closed in turn, their numbers) is
# Python in the official files and not checked here (schemas/rules/training-0.6.0.yaml):
# a record of a key those checks read, repeated or moved, passes here.
STATE_GAPS = {"training_0.6.0": "the v0.6 state machine is not checked (training-0.6.0.yaml)"}


def reads_state(rule: Rule) -> bool:
    try:
        tree = ast.parse(rule.text.strip(), mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Name) and n.id in ("s", "ll") for n in ast.walk(tree))


def gap(base: Base, mutant: Mutant | None, ours: bool, theirs: str) -> str | None:
    """The documented gap a difference falls in, or None."""
    why = STATE_GAPS.get(base.folder)
    if why is None or mutant is None or not ours or theirs != "fail":
        return None
    stateful = {r.key for r in base.rules if r.kind != "req" and reads_state(r)}
    moved = mutant.edit in ("first", "last", "repeat")
    return why if moved and mutant.rule.key in stateful else None


# --- the sweep ------------------------------------------------------------------------------

# The official file of each of our sections (tests/test_required_keys.py maps them alike).
_FILE = {"closed": "closed_common", "open": "open_common"}


@dataclass
class Base:
    folder: str  # training_5.1.0
    benchmark: str
    division: str
    source: str  # the corpus file, or what the base was made of
    records: list[Record]
    rules: list[Rule]  # of the official files the base's chain reaches


def _v6_base(ruleset: str, benchmark: str, division: str) -> list[Record] | None:
    """Rounds without a published log of a benchmark: the v6 bases (earlier corpus logs of
    the benchmark, or fixtures; tests/test_rounds_6_differential.py)."""
    from test_rounds_6_differential import BENCHMARKS, _base

    if benchmark not in BENCHMARKS.get(ruleset, []):
        return None
    lines = _base(benchmark, ruleset, division)
    return records("\n".join(lines)) if lines else None


def _v6_benchmarks(ruleset: str) -> list[str]:
    from test_rounds_6_differential import BENCHMARKS

    return list(BENCHMARKS.get(ruleset, []))


def bases(corpus: Path, reference: Path, only: str | None = None) -> Iterator[Base]:
    """Every round folder (or ``only`` that one) x benchmark x division the corpus (or a
    v6 base) covers."""
    from mllog_check import parse_text
    from mllog_check.rules import load_ruleset
    from mllog_check.rules.engine import chain

    for folder_path in folders(reference):
        folder = folder_path.name
        if only is not None and folder != only:
            continue
        ruleset = ruleset_of(folder)
        files = official_rules(folder_path)
        found = corpus_bases(corpus, folder)
        for benchmark in sorted(set(found) | set(_v6_benchmarks(ruleset))):
            for div in ("closed", "open"):
                if benchmark in found:
                    text = found[benchmark].read_text(encoding="latin-1")
                    base = division(records(text), div)
                    source = str(found[benchmark].relative_to(corpus))
                else:
                    made = _v6_base(ruleset, benchmark, div)
                    if made is None:
                        continue
                    base, source = made, f"v6 base of {benchmark}"
                text = "\n".join(r.line() for r in base) + "\n"
                sections = chain(load_ruleset(ruleset), parse_text(text, "base.txt").records)
                names = [_FILE.get(s.name, s.name) for s in sections]
                rules = [r for n in names for r in files.get(n, [])]
                named = {r.key for r in rules} | {k for s in sections for k in s.keys}
                yield Base(folder, benchmark, div, source, trim(base, named), rules)


def verdicts(path: Path, folder: str) -> tuple[bool, str, str | None]:
    """(ours passes, the official verdict, the official crash our model predicts)."""
    from official import official_in_process

    from mllog_check import parse_text
    from mllog_check.rounds import parse_round
    from mllog_check.rules import check_log
    from mllog_check.submission.crashes import log_crash

    usage, release = folder.split("_")
    ruleset = ruleset_of(folder)
    result = parse_text(path.read_text(encoding="latin-1"), str(path))
    verdict = check_log(result, ruleset)
    # v1.1 and v2.1 follow the era tool where 4.1.68 changed the rules after the round
    # (docs/differences.md): the era deviations' warnings are 4.1.68's errors.
    era = [p for p in verdict.problems if p.rule == "MLC110" and usage == "training"]
    if release == "1.1.0" and usage == "training":  # params.warn_only_keys
        era += [p for p in verdict.problems if re.search(r"\bweights_initialization\b", p.message)]
    ours = verdict.passed and not era
    stop = log_crash(result, parse_round(ruleset), verdict.problems)
    theirs = official_in_process(path, usage, release)
    return ours, theirs, (stop.message if stop is not None else None)


def disagreement(ours: bool, theirs: str, predicted: str | None) -> str | None:
    """A crash is a failure: ours must fail the log, and the model of official crashes
    (MLP044) must predict it, as it must predict none where the checker gives a verdict."""
    crashed = theirs.startswith("crash")
    if (ours and crashed) or (not crashed and ours != (theirs == "pass")):
        return f"ours {'pass' if ours else 'fail'}, official {theirs}"
    if crashed != (predicted is not None):
        return f"predicted {predicted or 'no crash'}, official {theirs}"
    return None


def mutant_id(base: Base, mutant: Mutant) -> str:
    return f"{base.benchmark} {base.division} {mutant.rule.name} [{mutant.edit}]"


def cases(base: Base, chosen: Iterable[Mutant]) -> list[tuple[str, Mutant | None, tuple[str, ...]]]:
    """The base itself, then its mutants: (name, mutant, lines)."""
    found: list[tuple[str, Mutant | None, tuple[str, ...]]] = [
        (f"{base.benchmark} {base.division} base", None, tuple(r.line() for r in base.records))
    ]
    return found + [(mutant_id(base, m), m, m.lines) for m in chosen]


def run(
    base: Base, todo: list[tuple[str, Mutant | None, tuple[str, ...]]], tmp: Path
) -> Iterator[dict[str, Any]]:
    """Each case's verdicts as a row (the sweep's and the sample test's unit); a
    documented official defect is named, not a difference."""
    for n, (case, mutant, lines) in enumerate(todo):
        path = tmp / f"result_{n}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ours, theirs, predicted = verdicts(path, base.folder)
        differs = disagreement(ours, theirs, predicted)
        known = mutant is not None and defect(base.folder, mutant.rule, mutant.edit, theirs)
        documented = gap(base, mutant, ours, theirs) if differs else None
        yield {
            "folder": base.folder,
            "case": case,
            "ours": ours,
            "official": theirs,
            "differs": None if (known and not ours) or documented else differs,
            "defect": theirs if known else None,
            "gap": documented,
        }


def main() -> None:
    """The full sweep (MLLOG_PARITY_ALL=1 runs it as a test too): one JSON row a mutant."""
    import argparse
    import os
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--folder", action="append", help="only these round folders")
    parser.add_argument("--recheck", type=Path, help="only the rows of this output that differed")
    args = parser.parse_args()
    again = None
    if args.recheck:
        rows = [json.loads(line) for line in args.recheck.read_text(encoding="utf-8").splitlines()]
        again = {(r["folder"], r["case"]) for r in rows if r["differs"]}
    reference = args.corpus.parent / "reference" / "official-rules"
    with tempfile.TemporaryDirectory() as tmp, args.out.open("w", encoding="utf-8") as out:
        os.chdir(tmp)  # the official checker writes its log in the cwd
        for base in (b for f in args.folder or [None] for b in bases(args.corpus, reference, f)):
            todo = cases(base, mutants(base.records, base.rules))
            if again is not None:
                todo = [c for c in todo if (base.folder, c[0]) in again]
            for row in run(base, todo, Path(tmp)):
                out.write(json.dumps({**row, "source": base.source}) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
