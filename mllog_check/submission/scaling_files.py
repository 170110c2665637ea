"""``package --write-scaling``: the ``scaling.json`` files the official package checker
writes (docs/package.md, "Writing scaling.json").

The official package checker's RCP step (closed division; the rounds that normalize:
Training v2.1 on, MLPerf HPC v1.0 on) writes ``scaling.json`` into a benchmark folder
whose runs pass the RCP check and converge faster than the reference mean: the JSON
object ``{"scaling_factor": F}`` with F = reference mean / submission mean, as Python's
``json.dumps`` writes it (shortest float, no newline). The result summarizer then
multiplies the score by F. The factor here is the results stage's
(``Score.rcp_scaling_factor``, docs/scores.md "Normalization"), held equal to the
official files by tests/test_write_scaling.py.

Only by explicit request; every file goes through ``mllog_check.outputs`` (never through
a link, never into a pipe or a device). A ``scaling.json`` already there is never
overwritten when it differs: it may be the committee's published decision, and this
tool does not destroy what it cannot recreate. It is kept, and the line says what the
official checker would write instead (or that it would remove it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import codes

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from .package import PackageReport

NAME = "scaling.json"


@dataclass(frozen=True, slots=True)
class Planned:
    """One benchmark folder's file, as the official package checker writes it."""

    folder: Path
    factor: float

    @property
    def path(self) -> Path:
        return self.folder / NAME

    @property
    def text(self) -> str:
        return json.dumps({"scaling_factor": self.factor})


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one file: ``action`` is wrote, unchanged, kept or refused."""

    path: Path
    action: str
    line: str

    @property
    def refused(self) -> bool:
        return self.action == "refused"


def normalizes(ruleset: str) -> bool:
    """The round's official package checker runs a normalizing RCP step (method
    "normalized": Training v2.1 on, MLPerf HPC v1.0 on; docs/scores.md)."""
    from ..results.scoring import scoring_for
    from ..rounds import parse_round

    try:
        rnd = parse_round(ruleset)
        return rnd.has("rules") and rnd.has("rcp") and scoring_for(rnd).rcp_method == "normalized"
    except Exception:  # a round without scoring data: it writes none either
        return False


def planned(report: PackageReport) -> list[Planned]:
    """The files the official package checker writes for this org: one per closed
    result set whose RCP check passes faster than the reference mean, except where the
    official checker stops before its RCP step (MLP044 on a log or on the set)."""
    stops = official_stops(report)
    if stops is None:
        return []
    out = []
    for row in report.scores:
        factor = row.get("rcp_scaling_factor")
        folder = Path(row.get("folder") or "")
        if factor is None or not factor > 1.0 or not row.get("folder"):
            continue
        if any(_related(stop, folder) for stop in stops):
            continue  # its own checks (or its system's) make the official tool stop
        out.append(Planned(folder, float(factor)))
    return sorted(out, key=lambda p: str(p.folder))


def official_stops(report: PackageReport) -> list[Path] | None:
    """Where the official package checker stops (MLP044) within result folders; None
    when it stops elsewhere (a system description it cannot read, checked before any
    result; the walk of a folder of the tree): it writes none, or none that does not
    depend on the order it lists folders in."""
    stops = [Path(p.path) for p in report.problems if p.rule == codes.OFFICIAL_CRASH.code]
    folders = [Path(str(row.get("folder"))) for row in report.scores if row.get("folder")]
    if any(not any(_related(stop, f) for f in folders) for stop in stops):
        return None
    return stops


def _related(stop: Path, folder: Path) -> bool:
    """A crash in a result folder (a log) or above it (its system's folder)."""
    return stop == folder or folder in stop.parents or stop in folder.parents


def unplanned(report: PackageReport, files: Iterable[Planned]) -> list[tuple[Path, str]]:
    """Folders the official RCP step compares with a reference that hold a
    ``scaling.json`` it would not write (it deletes the published one there), with
    their RCP verdicts."""
    written = {p.folder for p in files}
    out = []
    for row in report.scores:
        folder = Path(row.get("folder") or "")
        if not row.get("folder") or folder in written or not _compared(row):
            continue
        if (folder / NAME).is_symlink() or (folder / NAME).exists():
            out.append((folder / NAME, str(row.get("rcp_verdict"))))
    return sorted(out)


def _compared(row: Mapping[str, Any]) -> bool:
    """The official RCP step compared the runs with a reference (and so deleted the
    folder's scaling.json first): not when the batch size is above every reference,
    the runs did not converge or the batch sizes are unusable."""
    verdict, message = row.get("rcp_verdict"), str(row.get("rcp_message") or "")
    if verdict == "Missing":
        return "above every reference" not in message
    return verdict in ("Pass", "Fail", "Interp. Fail")


def write_scaling(report: PackageReport) -> list[Outcome]:
    """Write the org's files (``planned``); one outcome per file, in folder order, and
    one per published file the official checker would remove (kept)."""
    files = planned(report)
    outcomes = [_write(report, item) for item in files]
    if official_stops(report) is None:  # it stops before it removes any either
        return outcomes
    for path, verdict in unplanned(report, files):
        why = "not faster than the reference mean" if verdict == "Pass" else f"RCP {verdict}"
        line = (
            f"{path}: kept; the official package checker writes none here ({why}) and "
            "removes this one: remove it to match it"
        )
        outcomes.append(Outcome(path, "kept", line))
    return outcomes


def _write(report: PackageReport, item: Planned) -> Outcome:
    from ..inputs import InputError, read_in_tree
    from ..outputs import OutputError, output_folder, write_output

    path, text = item.path, item.text
    if path.is_symlink():  # wherever it points, in the tree or out of it
        why = "a symbolic link: not written through it (remove it, or put the file there)"
        return Outcome(path, "refused", f"{path}: {why}")
    if path.exists():
        try:
            held = read_in_tree(path, Path(report.root))
        except (InputError, OSError) as err:
            why = (getattr(err, "strerror", None) or str(err)).removesuffix(": not read")
            return Outcome(path, "refused", f"{path}: not written: {why}")
        if held == text.encode("utf-8"):
            return Outcome(path, "unchanged", f"{path}: unchanged ({text})")
        shown = held[:200].decode("utf-8", "replace")
        line = (
            f"{path}: kept, not overwritten: it holds {shown!r}; the official package "
            f"checker writes {text}: remove it to have it written"
        )
        return Outcome(path, "kept", line)
    try:
        output_folder(item.folder)
        write_output(path, text)
    except OutputError as err:
        return Outcome(path, "refused", f"{err}")
    return Outcome(path, "wrote", f"{path}: wrote {text}")
