"""Columns for reading many rounds' tables together (pandas, DuckDB): the round and its
publication date, the benchmark's model as its round means it, the accelerator's short
model and generation, and whether a run was re-published from an earlier round
(docs/scores.md, "Round and model columns").

The round is the one a result was scored by (its ruleset); the date is the round
registry's (``schemas/rounds.yaml`` ``dates.published``); the model comes from
``schemas/models.yaml`` by the name the registry gives the folder's benchmark in that
round (``rounds.current_benchmark_name``): ``ssd`` is SSD-ResNet34 up to v1.1 and
RetinaNet from v2.0.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, TypedDict, TypeVar, cast

from ..records import Record


class RoundColumns(TypedDict):
    round: str | None  # v1.0, hpc-v3.0; None when the ruleset names no round ("auto")
    published: str | None  # YYYY-MM-DD; None for a round not yet published
    benchmark_model: str | None  # None for a folder naming no benchmark of the round


class HardwareColumns(TypedDict):
    accelerator_short: str | None  # B200, MI300X, TPU-v4, Gaudi2
    accelerator_generation: str | None  # Blackwell, CDNA 3, TPU v4, Gaudi 2


class AcrossRounds(RoundColumns, HardwareColumns):
    """Every column for reading rounds together, as a score carries them."""

    republished: bool  # a run dated before the previous round's results


ROUND_COLUMNS: tuple[str, ...] = tuple(RoundColumns.__annotations__)
HARDWARE_COLUMNS: tuple[str, ...] = tuple(HardwareColumns.__annotations__)
ACROSS_COLUMNS: tuple[str, ...] = tuple(AcrossRounds.__annotations__)


@functools.cache
def models() -> dict[str, str]:
    """schemas/models.yaml, validated by its schema (a broken file is a build error)."""
    from ..datafiles import load_yaml, validate
    from ..prepared import schemas_dir

    path = schemas_dir() / "models.yaml"
    data = load_yaml(path)
    validate(data, schemas_dir() / "models.schema.json", path)
    return dict(data["models"])


@functools.cache
def round_columns(ruleset: str, benchmark: str) -> RoundColumns:
    """The round, its publication date and the benchmark's model for a result scored
    by ``ruleset`` in the folder ``benchmark``."""
    from ..rounds import current_benchmark_name, registry

    rnd = registry().find(ruleset) if ruleset else None
    if rnd is None:
        return {"round": None, "published": None, "benchmark_model": None}
    model = None
    if rnd.benchmark(benchmark) is not None:
        model = models().get(current_benchmark_name(rnd.ruleset, benchmark))
    return {"round": rnd.folder, "published": rnd.published, "benchmark_model": model}


def hardware_columns(
    accelerator_model: str | None, system_name: str | None = None, host: str | None = None
) -> HardwareColumns:
    """The short model and generation of a description's accelerator
    (schemas/accelerators.yaml, ``hardware.accelerator``); None where unknown."""
    from .hardware import accelerator

    found = accelerator(accelerator_model, system_name, host)
    if found is None:
        return {"accelerator_short": None, "accelerator_generation": None}
    return {"accelerator_short": found.model, "accelerator_generation": found.generation}


def republished(ruleset: Any, records: Sequence[Record]) -> bool:
    """Whether a run published in ``ruleset``'s round is dated before the previous
    round's results were published: a run of an earlier submission window re-published
    (``rounds.earlier_window``; v4.0's fastest BERT and ResNet-50 are v3.x runs)."""
    from ..rounds import Choice, Round, registry

    rnd = ruleset if isinstance(ruleset, Round) else registry().find(str(ruleset or ""))
    if rnd is None:
        return False
    # The round a result was published in, as its folder would say it.
    choice = Choice(rnd, "folder", f"published in {rnd.folder}")
    from ..rounds import earlier_window

    return earlier_window(choice, records) is not None


_Scored = TypeVar("_Scored")


def across_rounds(score: _Scored, runs: Sequence[Any] = ()) -> _Scored:
    """A score (``Score`` or ``WeakScore``) with the columns for reading rounds together:
    its round, publication date and model, its accelerator's short model and generation,
    and re-published when one of its runs is dated before the previous round's results.
    Here, not in scores.py, so that weak.py and scores.py both import it (no circle)."""
    from dataclasses import replace

    found: Any = score
    return cast(
        _Scored,
        replace(
            found,
            **round_columns(found.ruleset, found.benchmark),
            **hardware_columns(found.accelerator_model, found.system_name, found.host),
            republished=any(r.republished for r in runs),
        ),
    )
