"""The reasons given for broken marker lines are lark's labelled-example matches
(parsing/grammar.py ``explain``), kept per error shape: on thousands of broken lines made
from corpus records (bytes flipped, cut, dropped, doubled), the kept label is the one
``match_examples`` gives for that very error, first seen or not."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from mllog_check.parsing import grammar

MARKERS = (":::MLLOG", ":::MLL ", ":::MLPv0.5.0")


def _marker_lines(corpus: Path, per_round: int = 40) -> list[str]:
    lines: list[str] = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        logs = sorted(folder.glob("*/results/*/*/result_*.txt"))[:1]
        for log in logs:
            text = log.read_text(encoding="utf-8", errors="replace")
            found = [line[line.index(":::") :] for line in text.splitlines() if ":::ML" in line]
            lines.extend(found[:per_round])
    return [line for line in lines if line.startswith(MARKERS)]


def _broken(line: str, rng: random.Random) -> str:
    # Mostly in the envelope (marker, time, key): the payload is the JSON decoder's.
    i = rng.randrange(min(len(line), 40) if rng.random() < 0.9 else len(line))
    kind = rng.randrange(4)
    if kind == 0:
        return line[:i] + chr(rng.choice([34, 44, 58, 123, 125, 32, 120, 48])) + line[i + 1 :]
    if kind == 1:
        return line[:i]
    if kind == 2:
        return line[:i] + line[i + 1 :]
    return line[:i] + line[i] + line[i:]


@pytest.mark.corpus
def test_kept_labels_are_lark_s(corpus: Path) -> None:
    rng = random.Random(20261206)
    lines = _marker_lines(corpus)
    assert len(lines) > 100
    checked = 0
    for _ in range(6000):
        text = _broken(rng.choice(lines), rng)
        try:
            grammar.parser().parse(text)
        except UnexpectedInput as err:
            direct = err.match_examples(grammar.parser().parse, grammar.BAD_EXAMPLES)
            assert grammar.explain(err, text) == grammar.explain(err, text)
            if direct:
                assert grammar.explain(err, text) == str(direct), text
            checked += 1
    assert checked > 800
    assert 0 < len(grammar._LABELS) <= grammar._LABELS_KEPT
