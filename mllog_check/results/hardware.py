"""What a result ran on, for comparisons: availability categories and short accelerator
names, read from the system description's text (docs/scores.md, "Hardware columns").

System descriptions write their status and accelerator freely ("Available on-premise",
"onprem", "available"; "NVIDIA Blackwell GPU (B200-SXM-180GB)"). Filters and the
report's compact table need one word for each; the full text stays in the tables.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

# The four availability categories of the MLPerf Training rules ("System
# availability" in https://github.com/mlcommons/training_policies): on-premise, cloud,
# preview and research/development/internal (RDI).
AVAILABILITY = ("onprem", "cloud", "preview", "rdi")

_CLOUD = re.compile(r"cloud")
_PREVIEW = re.compile(r"preview")
_RDI = re.compile(r"research|\brdi\b|internal|development")
_ONPREM = re.compile(r"on[- ]?prem|^available$")


def availability_category(status: str | None) -> str | None:
    """onprem, cloud, preview or rdi from a description's ``status``; None when it says
    none of them (empty, "TODO")."""
    if not status:
        return None
    text = status.strip().casefold()
    for name, pattern in (
        ("cloud", _CLOUD),
        ("preview", _PREVIEW),
        ("rdi", _RDI),
        ("onprem", _ONPREM),
    ):
        if pattern.search(text):
            return name
    return None


class Accelerator(NamedTuple):
    """What a description's accelerator name means: its vendor, one model name across
    spellings ("Intel(R) Gaudi(R) 2" and "Intel Gaudi2" are Gaudi2) and its generation
    (None for a bare "TPU" that nothing else places)."""

    vendor: str
    model: str
    generation: str | None


class _Entry(NamedTuple):
    pattern: re.Pattern[str]
    accelerator: Accelerator
    cpu: bool


# Trademark marks sit inside names ("Intel(R) Gaudi(R) 2 AI Accelerator").
_MARKS = re.compile(r"\((?:R|TM|C)\)|[®™©]", re.IGNORECASE)


@functools.cache
def _table() -> tuple[_Entry, ...]:
    """schemas/accelerators.yaml, validated by its schema; a broken table is a build
    error (DataFileError), never a silent fallback."""
    from ..datafiles import load_yaml, validate
    from ..prepared import schemas_dir

    path = schemas_dir() / "accelerators.yaml"
    data = load_yaml(path)
    validate(data, schemas_dir() / "accelerators.schema.json", path)
    return tuple(
        _Entry(
            re.compile(e["pattern"], re.IGNORECASE),
            Accelerator(e["vendor"], e["model"], e.get("generation")),
            bool(e.get("cpu")),
        )
        for e in data["accelerators"]
    )


def _lookup(text: str | None, cpu: bool) -> Accelerator | None:
    if not text:
        return None
    plain = " ".join(_MARKS.sub(" ", text).split())
    return next((e.accelerator for e in _table() if e.cpu == cpu and e.pattern.search(plain)), None)


def accelerator(
    name: str | None, system_name: str | None = None, host: str | None = None
) -> Accelerator | None:
    """The model and generation of a description's accelerator (schemas/accelerators.yaml):
    from its ``accelerator_model_name``, else (a bare "TPU") its system name, else, for a
    system without accelerators, its host processor; None when the table knows none."""
    found = _lookup(name, cpu=False)
    if found is None or found.generation is None:
        found = _lookup(system_name, cpu=False) or found
    if found is None and not _known_name(name):
        found = _lookup(host, cpu=True)
    return found


def _known_name(name: str | None) -> bool:
    return bool(name) and str(name).strip().casefold() not in ("n/a", "na", "none", "todo", "-")


def short_accelerator(
    model: str | None, system_name: str | None = None, host: str | None = None
) -> str | None:
    """B200 for "NVIDIA Blackwell GPU (B200-SXM-180GB)", "TPU-v5p" for "TPU-v5p",
    "Gaudi2" for "Intel(R) Gaudi(R) 2"; the text itself when the table knows no name."""
    found = accelerator(model, system_name, host)
    if found is not None:
        return found.model
    return model.strip() if model else None


def accelerator_minutes(minutes: float | None, accelerators: int | None) -> float | None:
    """Minutes to train × accelerators: the machine time a result used, so that a
    result on 8 and one on 512 accelerators can be set side by side."""
    if minutes is None or accelerators is None:
        return None
    return minutes * accelerators


# A host processor's maker by the words descriptions use for it (AMD Rome, AMD EPYC
# 7B12, Intel(R) Xeon(R) Platinum 8480+, NVIDIA Grace, FUJITSU A64FX): what tells two
# servers with the same accelerators apart (docs/audit.md, "Preview a round later").
_HOST_MAKERS = (
    ("AMD", ("amd", "epyc", "rome", "milan", "genoa", "turin")),
    ("Intel", ("intel", "xeon")),
    ("NVIDIA", ("nvidia", "grace")),
    ("Ampere", ("ampere", "altra")),
    ("Fujitsu", ("fujitsu", "a64fx")),
    ("IBM", ("ibm", "power9", "power10")),
)


def host_maker(host: str | None) -> str | None:
    """AMD, Intel, NVIDIA, ...: the host processor's maker; None when no word tells."""
    if not host:
        return None
    words = set(re.findall(r"[a-z0-9]+", _MARKS.sub(" ", host).casefold()))
    return next((maker for maker, marks in _HOST_MAKERS if words & set(marks)), None)
