"""The small system-description checker (submission/sysdesc.py: quick_valid) says
"valid" only when jsonschema does, so that jsonschema is imported for an invalid
description only (docs/package.md); on the corpus it decides every valid one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_rounds
from jsonschema import Draft202012Validator

from mllog_check.submission.sysdesc import quick_valid, round_schema


def _descriptions(corpus: Path) -> list[tuple[str, Path]]:
    out = []
    for folder, rnd in shared_rounds(corpus, at_least=2):
        try:
            round_schema(rnd.folder)
        except FileNotFoundError:
            continue  # a round without a system schema (HPC, v0.5)
        out += [(rnd.folder, p) for p in sorted(folder.glob("*/systems/*.json"))]
    return out


def _mutants(data: dict[str, Any]) -> list[Any]:
    """Values jsonschema may reject: keys dropped, fields of another type, blank names."""
    out: list[Any] = [[], "text", None, {}]
    for key in list(data)[:12]:
        out.append({k: v for k, v in data.items() if k != key})
        for wrong in (True, None, [], {}, "", " ", -1, 0, 1.5, "0", "x", {"a": []}):
            out.append({**data, key: wrong})
    return out


@pytest.mark.corpus
def test_quick_valid_agrees_with_jsonschema_on_corpus_descriptions(corpus: Path) -> None:
    found = _descriptions(corpus)
    assert found, "no system description with a schema in the corpus"
    decided = 0
    for folder, path in found:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        schema = round_schema(folder)
        validator = Draft202012Validator(schema)
        for value in [data, *(_mutants(data) if isinstance(data, dict) else [])]:
            quick = quick_valid(value, schema, schema)
            valid = validator.is_valid(value)
            if quick is True:
                assert valid, (path, value)
            if value is data and valid:
                assert quick is True, f"{path}: valid, yet jsonschema was needed"
                decided += 1
    assert decided, "no valid description in the corpus: the shortcut is untested"
