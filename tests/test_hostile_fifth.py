"""Hostile inputs, fifth look (docs/security.md): message amplification, nesting depth,
empty orgs, staged paths above the repository, extreme values in later stages, workbook
cells.

Each test plants its fault in a copy of a published log or tree in ``tmp_path``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import test_hostile
from test_hostile_bounds import _limited

pytestmark = pytest.mark.corpus
tree = test_hostile.tree  # a copy of one published v5.0 benchmark folder and its system

# A published log whose rules relate keys (closed Llama 3.1 405B: MLC051 relations).
RELATED = "v5.1/NVIDIA/results/tyche_ngpu512_ngc25.09_nemo/llama31_405b/result_0.txt"


def _with_value(log: bytes, key: str, value: bytes) -> bytes:
    """The log with the first ``key`` record's value replaced by ``value`` (JSON)."""
    lines = log.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if f'"key": "{key}"'.encode() in ln)
    line = lines[index]
    start = line.index(b'"value": ') + len(b'"value": ')
    lines[index] = line[:start] + value + line[line.index(b', "metadata"', start) :]
    return b"\n".join(lines)


# -- 2. message amplification ---------------------------------------------------------


def test_a_huge_value_quoted_by_relations_gives_bounded_messages(
    corpus: Path, tmp_path: Path
) -> None:
    from mllog_check.checking import check_paths
    from mllog_check.errors import MESSAGE_LIMIT
    from mllog_check.rules.engine import SHORT_MESSAGE, TEXT_BUDGET

    huge = b'"' + b"A" * 8_000_000 + b'"'
    data = _with_value((corpus / RELATED).read_bytes(), "global_batch_size", huge)
    path = tmp_path / "result_0.txt"
    path.write_bytes(data)
    problems = check_paths([str(path)], "5.1.0").verdicts[0].problems
    relations = [p for p in problems if p.rule == "MLC051"]
    assert relations and all("global_batch_size = 'AAAA" in p.message for p in relations)
    assert max(len(p.message) + len(p.text) for p in problems) <= 2 * MESSAGE_LIMIT
    assert max(len(p.message) for p in relations) < 1_000  # each quoted value is cut
    # The relation's line 1,000 times (an 8 GB report before, 4.2 GB of memory).
    lines = data.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "opt_base_learning_rate"' in ln)
    lines[index + 1 : index + 1] = [lines[index]] * 1_000
    many = tmp_path / "many" / "result_0.txt.gz"
    many.parent.mkdir()
    many.write_bytes(gzip.compress(b"\n".join(lines)))
    code, out, err = _limited(["check", "--ruleset", "5.1.0", str(many)])
    assert code == 1 and "Traceback" not in err
    assert len(out) < TEXT_BUDGET + 1_100 * (SHORT_MESSAGE + 200), len(out)


def test_every_problem_is_bounded_at_construction() -> None:
    from mllog_check.errors import MESSAGE_LIMIT
    from mllog_check.problems import Problem, Severity

    problem = Problem("a", 1, 1, "MLC051", Severity.ERROR, "x" * 10**6, text="y" * 10**6)
    assert len(problem.message) < MESSAGE_LIMIT + 100 and "characters cut" in problem.message
    assert len(problem.text) < MESSAGE_LIMIT + 100
