"""Preview systems a round later: each preview system of round N with no available
system of the same submitter in the round it had to be available by (docs/audit.md,
"Preview a round later").

A Preview system "will qualify [as Available] in the next submission after 140 days of
the current submission date, or by the next MLPerf submission date, whichever is more";
if it is not submitted then, "the Preview benchmark will be marked as invalid"
(submission_rules.adoc of mlcommons/policies, "Preview Systems"). The audit can tell
this only when it reads both rounds. It matches a preview system, among the same
submitter's available (on-premise or cloud) systems of that round, by its name or by the
system itself: the same accelerator model (the host processor's for a system without
accelerators), accelerators per node and host processor maker. The node count may
differ: "Available Training submissions can be on scales smaller than the smallest and
larger than the largest scale used for Preview submission". A system renamed (v0.7
Intel's CPX ``1-node-4s`` as v1.0's ``1-node-4s-8380H-pytorch``) or resized (DGX H100 at
3 nodes as a preview, 1 to 96 available) is found; another server with the same
accelerators (v1.0 GIGABYTE G492-ZD2 with AMD hosts, v1.1 G492-ID0 with Intel hosts) is
not the system previewed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..problems import Context, Problem
from ..results.hardware import accelerator, availability_category, host_maker
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
    model: str | None  # the accelerator's (the host processor's without accelerators)
    accelerators: int | None
    per_node: int | None
    maker: str | None  # the host processor's maker
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
            host = row.get("host")
            model = accelerator(row.get("accelerator_model"), name, host)
            sys = found[key] = _System(
                round=key[0],
                org=where.rsplit("/", 1)[-1],
                system=key[2],
                name=name.strip().casefold(),
                status=availability_category(row.get("availability")),
                model=model.model if model else None,
                accelerators=row.get("accelerators"),
                per_node=_per_node(row.get("accelerators"), row.get("nodes")),
                maker=host_maker(host),
                where=where,
            )
        minutes = row.get("minutes")
        shown = f"{minutes:.2f} min" if isinstance(minutes, float) else "no score"
        sys.results.append(f"{row.get('benchmark')} {shown}")
    return sorted(found.values(), key=lambda s: (s.round, s.where, s.system))


def _per_node(accelerators: object, nodes: object) -> int | None:
    if not isinstance(accelerators, int) or not isinstance(nodes, int) or nodes <= 0:
        return None
    return accelerators // nodes if accelerators % nodes == 0 else None


def _same(preview: _System, other: _System) -> bool:
    """The system previewed, at any scale: its name, or its accelerator model,
    accelerators per node and host maker (each known on both sides)."""
    if preview.name and preview.name == other.name:
        return True
    return (
        preview.model is not None
        and preview.model == other.model
        and preview.per_node is not None
        and preview.per_node == other.per_node
        and preview.maker is not None
        and preview.maker == other.maker
    )


def _described(sys: _System) -> str:
    per_node = f"{sys.per_node} × " if sys.per_node else ""
    model = sys.model or "accelerators unknown"
    return f"{per_node}{model} per node, {sys.maker or 'unknown'} host"


def _message(sys: _System, due: Round, later: list[_System]) -> str:
    carried = ", ".join(sorted(sys.results))
    if not later:
        found = f"{sys.org} has no result in {due.version} among the folders audited"
    else:
        there = sorted(f"{s.system} ({s.status or 'no status'}; {_described(s)})" for s in later)
        found = f"candidates considered, {sys.org}'s systems there: " + ", ".join(there)
    return (
        f"preview system {sys.system} ({sys.round}; {_described(sys)}; results: {carried}) "
        f"has no available system of its name or hardware in {due.version}, the round it "
        "had to be available by (any scale: the available results must cover the "
        "preview's smallest and largest, on each previewed benchmark the round still "
        'has; submission_rules.adoc, "Preview Systems"); ' + found
    )
