"""Preview systems a round later: each preview system of round N with no available
system of the same submitter in the round it had to be available by (docs/audit.md,
"Preview a round later").

A Preview system "will qualify [as Available] in the next submission after 140 days of
the current submission date, or by the next MLPerf submission date, whichever is more";
if it is not submitted then, "the Preview benchmark will be marked as invalid"
(submission_rules.adoc of mlcommons/policies, "Preview Systems"). The audit can tell
this only when it reads both rounds: it matches a preview system by the same submitter
and system name, or the same accelerator model and count, among that round's available
(on-premise or cloud) systems.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..problems import Context, Problem
from ..results.hardware import accelerator, availability_category
from ..results.scores import ScoreRow
from ..rounds import Round, all_rounds, registry

# The rules' window: available "in the next submission after 140 days".
PREVIEW_DAYS = 140
_DAY_MS = 86_400_000.0


@dataclass
class _System:
    round: str
    org: str  # the submitter's folder name (without the round folder)
    system: str
    name: str
    status: str | None  # availability category
    model: str | None
    accelerators: int | None
    results: list[str] = field(default_factory=list)  # "benchmark 1.23 min"
    where: str = ""  # the org folder as the audit's rows name it


def preview_not_available(scores: Sequence[ScoreRow]) -> list[Problem]:
    """One MLA050 anomaly per preview system whose deadline round was audited and holds
    no available system of the same submitter with its name, or its accelerator model
    and count. Preview systems whose deadline round is not among the scores: nothing."""
    from .codes import PREVIEW_NOT_AVAILABLE

    systems = _systems(scores)
    audited = {s.round for s in systems}
    out = []
    for sys in systems:
        due = deadline_round(sys.round) if sys.status == "preview" else None
        if due is None or due.version not in audited:
            continue
        later = [s for s in systems if s.round == due.version and s.org == sys.org]
        if any(_same(sys, s) for s in later if s.status in ("onprem", "cloud")):
            continue
        message = _message(sys, due, later)
        path = f"{sys.where}/systems/{sys.system}.json"
        where = Context(sys.where, sys.system, "")
        out.append(PREVIEW_NOT_AVAILABLE.problem(path, message, context=where))
    return sorted(out)


def deadline_round(version: str) -> Round | None:
    """The first round of the same usage at least PREVIEW_DAYS after ``version`` (by the
    registry's publication dates; the next round where either has no date)."""
    current = registry().find(version)
    if current is None:
        return None
    later = [r for r in all_rounds() if r.usage == current.usage and r.number > current.number]
    for rnd in sorted(later, key=lambda r: r.number):
        start, end = current.published_ms, rnd.published_ms
        if start is None or end is None or end - start >= PREVIEW_DAYS * _DAY_MS:
            return rnd
    return None


def _systems(scores: Iterable[ScoreRow]) -> list[_System]:
    found: dict[tuple[str, str, str], _System] = {}
    for row in scores:
        where = str(row.get("org") or "")
        key = (str(row.get("ruleset")), where, str(row.get("system")))
        sys = found.get(key)
        if sys is None:
            name = str(row.get("system_name") or row.get("system") or "")
            model = accelerator(row.get("accelerator_model"), name)
            sys = found[key] = _System(
                round=key[0],
                org=where.rsplit("/", 1)[-1],
                system=key[2],
                name=name.strip().casefold(),
                status=availability_category(row.get("availability")),
                model=model.model if model else None,
                accelerators=row.get("accelerators"),
                where=where,
            )
        minutes = row.get("minutes")
        shown = f"{minutes:.2f} min" if isinstance(minutes, float) else "no score"
        sys.results.append(f"{row.get('benchmark')} {shown}")
    return sorted(found.values(), key=lambda s: (s.round, s.where, s.system))


def _same(preview: _System, other: _System) -> bool:
    if preview.name and preview.name == other.name:
        return True
    return (
        preview.model is not None
        and preview.model == other.model
        and preview.accelerators is not None
        and preview.accelerators == other.accelerators
    )


def _message(sys: _System, due: Round, later: list[_System]) -> str:
    carried = ", ".join(sorted(sys.results))
    scale = f"{sys.accelerators} × {sys.model}" if sys.model else "its accelerators"
    if not later:
        found = f"{sys.org} has no result in {due.version} among the folders audited"
    else:
        there = sorted(f"{s.system} ({s.status or 'no status'})" for s in later)
        found = f"{sys.org}'s systems there: " + ", ".join(there)
    return (
        f"preview system {sys.system} ({sys.round}; results: {carried}) has no available "
        f"system of the same name or {scale} in {due.version}, the round it had to be "
        f"available by; {found}"
    )
