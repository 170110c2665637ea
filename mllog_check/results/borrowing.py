"""Declared hyperparameter borrowing, checked key by key (docs/hparams.md).

A borrowing file names, for each result that borrowed, the result it borrowed from::

    borrowings:
      - result: 5.1.0/GigaComputing/G893-ZX1-AAX4_pytorch/llama31_8b
        from: 5.1.0/AMD/MI355X_EPYC_9575F_pytorch/llama31_8b

A borrower "may change batch size (local batch size, global batch size, batchnorm span),
but must replace all other hyperparameters as a group" (training_rules.adoc, "Hyperparameter
Borrowing", mlcommons/training_policies): every constrained key outside that group must
then equal the lender's. Each difference is one MLA050 problem at the entry's line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ReadError
from ..problems import Problem
from .hparams import ABSENT, BATCH_GROUP, HparamRow, canonical, describe, result_id

# A borrowing file lists a round's declarations: far below this.
BORROWING_LIMIT = 1 << 20


class BorrowingError(ReadError):
    """A borrowing file that cannot be read or has the wrong shape (exit 2)."""


@dataclass(frozen=True)
class Declaration:
    borrower: str  # round/org/system/benchmark as written
    lender: str
    line: int  # of the entry in the file (1-based)


def load_declarations(path: str | Path) -> list[Declaration]:
    """The file's declarations, or BorrowingError naming what is wrong."""
    from ..inputs import InputError, read_in_tree
    from ..yamlsafe import YamlError, compose, load

    try:
        text = read_in_tree(Path(path), None, BORROWING_LIMIT).decode("utf-8-sig")
        data, node = load(text), compose(text)
    except (InputError, UnicodeDecodeError, YamlError) as err:
        raise BorrowingError(f"{path}: cannot read the borrowing file: {err}") from None
    entries = data.get("borrowings") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BorrowingError(f"{path}: expected a mapping with a 'borrowings' list")
    lines = _entry_lines(node)
    found = []
    for index, entry in enumerate(entries):
        line = lines[index] if index < len(lines) else 0
        if not (isinstance(entry, dict) and _text(entry, "result") and _text(entry, "from")):
            raise BorrowingError(f"{path}:{line}: an entry needs 'result' and 'from' (text)")
        unknown = sorted(set(map(str, entry)) - {"result", "from", "note"})
        if unknown:
            raise BorrowingError(f"{path}:{line}: unknown field {unknown[0]!r}")
        found.append(Declaration(entry["result"].strip(), entry["from"].strip(), line))
    return found


def _text(entry: dict[Any, Any], key: str) -> bool:
    return isinstance(entry.get(key), str) and bool(entry[key].strip())


def _entry_lines(node: Any) -> list[int]:
    """1-based lines of the items of the 'borrowings' sequence (for problem positions)."""
    for key, value in getattr(node, "value", []) if isinstance(node.value, list) else []:
        if getattr(key, "value", None) == "borrowings" and isinstance(value.value, list):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def check_declarations(
    declarations: Sequence[Declaration], rows: Sequence[HparamRow], path: str
) -> list[Problem]:
    """One problem per constrained key a borrower does not share with its lender, and
    one per declaration naming a result the table does not hold."""
    from .codes import BORROWED_DIFFERS, BORROWING_UNRESOLVED

    index = {_normal_id(result_id(r)): r for r in rows}
    problems = []
    for decl in declarations:
        borrower, lender = index.get(_normal_id(decl.borrower)), index.get(_normal_id(decl.lender))
        missing = [t for t, r in ((decl.borrower, borrower), (decl.lender, lender)) if r is None]
        if missing or borrower is None or lender is None:
            message = f"no result {missing[0]!r} among the results read ({len(rows)} result sets)"
            problems.append(BORROWING_UNRESOLVED.problem(path, message, decl.line, 1))
            continue
        for key, theirs, ours in differences(borrower, lender):
            message = (
                f"{result_id(borrower)} borrows from {result_id(lender)} but {key} is "
                f"{describe(ours)}, the lender's {describe(theirs)} (only the batch size "
                "may differ)"
            )
            problems.append(BORROWED_DIFFERS.problem(path, message, decl.line, 1))
    return sorted(problems)


def differences(borrower: HparamRow, lender: HparamRow) -> list[tuple[str, Any, Any]]:
    """(key, lender's value, borrower's value) for each constrained key outside the
    batch-size group where the two differ (a key logged by one only included)."""
    keys = sorted((set(borrower.keys) | set(lender.keys)) - BATCH_GROUP)
    out = []
    for key in keys:
        theirs, ours = lender.values.get(key, ABSENT), borrower.values.get(key, ABSENT)
        if canonical(theirs) != canonical(ours):
            out.append((key, theirs, ours))
    return out


def _normal_id(text: str) -> tuple[str, ...]:
    """round/org/system/benchmark with the round and benchmark in any spelling."""
    from ..rounds import current_benchmark_name, registry

    parts = [p.strip() for p in text.strip().strip("/").split("/")]
    if len(parts) != 4:
        return tuple(parts)
    found = registry().find(parts[0])
    version = found.version if found is not None else parts[0]
    return (version, parts[1], parts[2], current_benchmark_name(version, parts[3]))
