"""Counts that hold: every check beyond the official tools fires on the
corpus, round by round, as tests/data/beyond_firings.yaml records, so that a change in
what a check reports shows as a diff (docs/differences.md, "Firings of the checks beyond
the official tools"). The corpus grows between sessions: a round or a code new to it is
named with the command that regenerates the file, never a crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import beyond_firings


@pytest.mark.corpus
def test_every_beyond_code_fires_per_round_as_recorded(corpus: Path) -> None:
    """The whole corpus audited once per round (about 30 s on two cores)."""
    recorded = beyond_firings.load(beyond_firings.DATA)
    codes = beyond_firings.beyond_codes()
    counted = {}
    for folder in beyond_firings.round_folders(corpus):
        firings = beyond_firings.firings(folder)
        counted[folder.name] = {code: firings.get(code, 0) for code in codes}
    changes = beyond_firings.compare(recorded, counted, codes)
    assert not changes, "\n".join([*changes, beyond_firings.REGENERATE])


def test_the_comparison_names_each_change() -> None:
    recorded = {"v1.0": {"MLC101": 3, "MLP004": 0}, "v0.9": {"MLC101": 0, "MLP004": 0}}
    counted = {"v1.0": {"MLC101": 4, "MLP004": 0, "MLC999": 0}, "v9.9": {"MLC101": 2}}
    changes = beyond_firings.compare(recorded, counted, ["MLC101", "MLC999", "MLP004"])
    assert changes == [
        "round v9.9 is new to the corpus, not in the data file (fires: {'MLC101': 2})",
        "round v0.9 is in the data file but no longer in the corpus",
        "MLC999 is a beyond-official code the data file does not count",
        "v1.0 MLC101: 3 firings recorded, 4 now",
    ]
    assert beyond_firings.compare(recorded, recorded, ["MLC101", "MLP004"]) == []
    gone = beyond_firings.compare(recorded, recorded, ["MLC101"])
    assert gone == ["MLP004 is in the data file but no longer a beyond-official code"]


def test_the_data_file_counts_every_beyond_code() -> None:
    recorded = beyond_firings.load(beyond_firings.DATA)
    assert recorded, "run: python scripts/beyond_firings.py > tests/data/beyond_firings.yaml"
    codes = set(beyond_firings.beyond_codes())
    for name, counts in recorded.items():
        assert set(counts) == codes, (name, set(counts) ^ codes)
        assert all(n >= 0 for n in counts.values())
