"""What a result ran on, for comparisons: availability categories and short accelerator
names, read from the system description's text (docs/scores.md, "Hardware columns").

System descriptions write their status and accelerator freely ("Available on-premise",
"onprem", "available"; "NVIDIA Blackwell GPU (B200-SXM-180GB)"). Filters and the
report's compact table need one word for each; the full text stays in the tables.
"""

from __future__ import annotations

import re

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


# Model words as vendors write them: B200, GB200, H100, A100, V100, MI355X, Gaudi 3,
# TPU v5p, IPU GC200. The first match names the accelerator in narrow places.
_MODEL = re.compile(
    r"\b(G?B\d{3}|[AHLV]\d{2,3}|MI\d{3}[A-Z]?|Gaudi ?\d?|GC\d{3})(?![A-Za-z0-9])"
    r"|\b(TPU)(?:[- ](v?\d+[a-z]?|trillium))?",
    re.IGNORECASE,
)


def short_accelerator(model: str | None) -> str | None:
    """B200 for "NVIDIA Blackwell GPU (B200-SXM-180GB)", "TPU-v5p" for "TPU-v5p",
    "Gaudi2" for "Intel Gaudi2"; the text itself when no known word is in it."""
    if not model:
        return None
    match = _MODEL.search(model)
    if match is None:
        return model.strip()
    if match.group(2):
        version = match.group(3)
        return f"TPU-{version.lower()}" if version else "TPU"
    word = match.group(1)
    return word.replace(" ", "") if word.lower().startswith("gaudi") else word.upper()


def accelerator_minutes(minutes: float | None, accelerators: int | None) -> float | None:
    """Minutes to train × accelerators: the machine time a result used, so that a
    result on 8 and one on 512 accelerators can be set side by side."""
    if minutes is None or accelerators is None:
        return None
    return minutes * accelerators
