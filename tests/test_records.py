"""Record: the typed fields mypy sees equal the fields made at run time (records.py states
them twice so that a check does not import typing: docs/design.md)."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

from mllog_check.records import Generation, Record


def test_typed_fields_equal_runtime_fields() -> None:
    tree = ast.parse(Path(__file__).parent.parent.joinpath("mllog_check/records.py").read_text())
    (typed,) = [
        n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "_RecordFields"
    ]
    names = tuple(s.target.id for s in typed.body if isinstance(s, ast.AnnAssign))  # type: ignore[union-attr]
    assert names == Record._fields


def test_record_behaves_as_a_named_tuple() -> None:
    record = Record("r.txt", 3, 1, Generation.MLLOG, None, 1.5, None, "seed", 7, {})
    assert record.key == "seed" and record[7] == "seed"
    assert repr(record).startswith("Record(path='r.txt', line=3,")
    changed = record._replace(value=8)
    assert type(changed) is Record and changed.value == 8
    assert pickle.loads(pickle.dumps(record)) == record
    assert type(pickle.loads(pickle.dumps(record))) is Record
    assert record.to_dict()["generation"] == "mllog"
