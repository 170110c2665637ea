"""The one model of a results tree: result sets and system descriptions.

``ResultSet`` is one benchmark folder of one system, the unit a score is computed for;
``SystemDescription`` is ``systems/<system>.json`` as read, with the typed values a
score needs. ``score``, ``cost``, ``report`` find result sets with ``discover``; the
package checker lists one org folder with its layout checks (``submission.layout``)
and makes each of its result sets with ``result_set`` here, and reads descriptions
with ``read_system`` here; the audit's tables are the package checker's rows.

``discover`` accepts a results repository root (one folder per org, or one folder per
round holding orgs), an org folder, its ``results/`` folder, a system folder or a
system/benchmark folder. A result set is every folder that directly holds
``result_*.txt`` files; org and system come from the published layout
``<org>/results/<system>/<benchmark>/``, or MLPerf HPC's
``<org>/results/<system>/<strong|weak>/<benchmark>/`` (docs/hpc.md). Links leaving the
tree are never followed (``inputs.walk``), and no side file outside it is read
(``inputs.read_in_tree``, docs/security.md).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..inputs import InputError, read_in_tree, walk
from ..problems import Problem
from ..syntax_codes import INPUT_ERROR
from . import keyed_lines

if TYPE_CHECKING:
    from ..datafiles import Document

_RESULT = re.compile(r"^result_.*\.txt(?:\.gz)?$")
# MLPerf HPC's scaling level between the system and the benchmark folder.
SCALINGS = ("strong", "weak")


@dataclass(frozen=True, slots=True)
class ResultSet:
    """One benchmark folder of one system: the unit a score is computed for.

    ``folder``, ``system_json`` and ``root`` are the strings rows show (as the tree was
    named); ``files`` and ``power`` are the paths read."""

    org: str
    system: str
    benchmark: str
    folder: str
    files: tuple[Path, ...]
    system_json: str | None  # path of <org>/systems/<system>.json when present
    scaling: str | None = None  # HPC: "strong" or "weak" (the folder level); None: Training
    # The tree every file of the set is read from: the folder named on the command
    # line, or the org folder above it (docs/security.md: nothing outside is read).
    root: str = ""
    # What the package checker's layout pass adds (submission/layout.py):
    power: Path | None = None  # the power/ folder beside the results (v4.0+)
    known: bool = True  # a benchmark of the round (the official checker skips others)
    gzipped: tuple[Path, ...] = ()  # result_*.txt.gz: not read by the official checker

    @property
    def key(self) -> tuple[str, str]:
        return (self.system, self.benchmark)


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Why a system description has no data, in its reader's words (each stage reports
    it with its own code: the package checker's MLP008/MLP009/MLP010, a score's MLR030)."""

    # "read" (not a regular file in the tree), "json", "nesting", "value", "not-object"
    kind: str
    reason: str  # the error as the reader said it (the JSON type for "not-object")
    detail: str = ""  # "json": the decoder's message without its position
    line: int = 0
    column: int = 0


@dataclass(frozen=True, slots=True)
class SystemDescription:
    """``systems/<system>.json`` as read (``read_system``): its text, its JSON object
    (None when unreadable or not an object) and the problems its loader reported; the
    values a score needs (the file writes them as strings) are properties."""

    path: str = ""
    data: Document | None = None
    text: str = ""
    problems: list[Problem] = field(default_factory=list)
    unreadable: Unreadable | None = None
    # "json", or "keyed-lines": `key: {json}` lines read into the template's keys
    # (results/keyed_lines.py; NVIDIA's v0.6 descriptions)
    form: str = "json"

    def get(self, key: str) -> Any:
        return self.data.get(key) if self.data else None

    @property
    def system_name(self) -> str | None:
        return _text(self.get("system_name"))

    @property
    def status(self) -> str | None:
        return _lower(self.get("status"))

    @property
    def division(self) -> str | None:
        # Real files write "Closed" and (PCL v1.0) "close"; some v0.7 files misspell the key.
        value = _lower(self.get("division") or self.get("divison"))
        if value in ("close", "closed"):
            return "closed"
        return value

    @property
    def accelerators(self) -> int | None:
        nodes = _number(self.get("number_of_nodes"))
        per_node = _number(self.get("accelerators_per_node"))
        if nodes is None or per_node is None:
            return None
        return nodes * per_node

    @property
    def accelerator_count(self) -> int | None:
        """Nodes × accelerators per node as the official summarizer counts them (its
        ``accelerators_count``, MLPerf HPC's T): 0 for a system without accelerators
        (``accelerators_per_node`` "0": Fugaku's A64FX CPUs, docs/hpc.md)."""
        if str(self.get("accelerators_per_node")).strip() in ("0", "0.0"):
            return 0 if self.nodes is not None else None
        return self.accelerators

    @property
    def submitter(self) -> str | None:
        return _text(self.get("submitter"))

    # What comparisons name (docs/scores.md, "Hardware columns"): the accelerator as the
    # description writes it, the node count, the host CPU and the accelerator links.
    @property
    def accelerator_model(self) -> str | None:
        return _known(self.get("accelerator_model_name"))

    @property
    def nodes(self) -> int | None:
        return _number(self.get("number_of_nodes"))

    @property
    def host(self) -> str | None:
        return _known(self.get("host_processor_model_name"))

    @property
    def interconnect(self) -> str | None:
        return _known(self.get("accelerator_interconnect"))


def is_org_folder(folder: Path) -> bool:
    """A submitter's folder: a real folder (not a link) holding ``results/`` (the
    package checker's org, each org an audit checks)."""
    return folder.is_dir() and not folder.is_symlink() and (folder / "results").is_dir()


def is_result_file(path: Path) -> bool:
    return _RESULT.match(path.name) is not None


def discover(paths: list[str]) -> tuple[list[ResultSet], list[Problem]]:
    """Every result set below the given paths, sorted by (org, system, benchmark)."""
    groups: dict[Path, list[Path]] = {}
    roots: dict[Path, Path] = {}
    problems: list[Problem] = []
    for raw in paths:
        root = Path(raw)
        if root.is_file() and is_result_file(root):
            groups.setdefault(root.parent, []).append(root)
            roots.setdefault(root.parent, root.parent)
            continue
        if not root.is_dir():
            problems.append(INPUT_ERROR.problem(raw, "no such results folder"))
            continue
        sources, issues = walk(root, is_result_file)
        problems.extend(issues)
        for source in sources:
            assert source.path is not None
            groups.setdefault(source.path.parent, []).append(source.path)
            roots.setdefault(source.path.parent, root)
    sets = []
    for folder, files in groups.items():
        if _stray(folder):
            from .codes import STRAY_FOLDER

            message = (
                "result files outside <org>/results/<system>/<benchmark>/ (HPC: "
                "<system>/<strong|weak>/<benchmark>/): not scored (nor read by the official "
                "summarizer)"
            )
            problems.append(STRAY_FOLDER.problem(str(folder), message))
            continue
        sets.append(_result_set(folder, files, roots[folder]))
    sets.sort(key=lambda s: (s.org, s.system, s.scaling or "", s.benchmark, s.folder))
    return sets, sorted(set(problems))


def _stray(folder: Path) -> bool:
    """Below a ``results`` folder, only results/<system>/<benchmark> (HPC:
    results/<system>/<strong|weak>/<benchmark>) holds scored runs (a published v1.0 tree
    has a stray copy at results/<system>/resnet/bert/; HPC orgs keep extra models in
    weak/<benchmark>/pruned_results/)."""
    parts = folder.resolve().parts
    if "results" not in parts:
        return False
    depth = len(parts) - (len(parts) - 1 - parts[::-1].index("results"))
    return not (depth == 3 or (depth == 4 and parts[-2] in SCALINGS))


def _result_set(folder: Path, files: list[Path], given: Path) -> ResultSet:
    absolute = folder.resolve()
    scaling = absolute.parent.name if absolute.parent.name in SCALINGS else None
    system_dir = absolute.parent.parent if scaling else absolute.parent
    org_dir = _org_dir(system_dir)
    system_json = _as_given(org_dir / "systems" / f"{system_dir.name}.json", given)
    ordered = sorted({str(f) for f in files}, key=_natural)
    return result_set(
        folder,
        [Path(f) for f in ordered],
        given,
        scaling=scaling,
        # Present at all (a FIFO, a link leaving the tree): load_system says why not read.
        system_json=system_json if os.path.lexists(system_json) else None,
    )


def result_set(
    folder: Path,
    files: list[Path],
    given: Path,
    *,
    scaling: str | None,
    system_json: Path | None,
    names: tuple[str, str] | None = None,
    power: Path | None = None,
    known: bool = True,
    gzipped: tuple[Path, ...] = (),
) -> ResultSet:
    """The result set of a benchmark folder, its files in the order given: org and system
    from ``<org>/results/<system>/[<scaling>/]<benchmark>`` (links resolved), unless a
    listing of the tree gives their ``names``; ``given`` is the folder named on the
    command line (its tree is what the set's side files are read from)."""
    absolute = folder.resolve()
    system_dir = absolute.parent.parent if scaling else absolute.parent
    org_dir = _org_dir(system_dir)
    org, system = names or (org_dir.name, system_dir.name)
    return ResultSet(
        org=org,
        system=system,
        benchmark=folder.name,
        folder=str(folder),
        files=tuple(files),
        system_json=None if system_json is None else str(system_json),
        scaling=scaling,
        root=str(_tree_root(given, org_dir)),
        power=power,
        known=known,
        gzipped=gzipped,
    )


def _org_dir(system_dir: Path) -> Path:
    """<org>/results/<system>: anything else keeps the folder names we have."""
    results_dir = system_dir.parent
    return results_dir.parent if results_dir.name == "results" else results_dir


def _as_given(path: Path, given: Path) -> Path:
    """``path`` (links resolved) spelt from the folder named on the command line when it
    lies below it, as the package checker's layout spells it (a corpus reached through a
    link gives both the same rows)."""
    try:
        return given / path.relative_to(given.resolve())
    except ValueError:
        return path


def _tree_root(given: Path, org_dir: Path) -> Path:
    """The org folder when the named folder lies below it (its systems/ belong to the
    tree), else the named folder."""
    real = given.resolve()
    return org_dir if real == org_dir or org_dir in real.parents else real


def _natural(name: str) -> tuple[str, int, str]:
    """result_2 before result_10."""
    match = re.search(r"result_(\d+)", name)
    return (name[: match.start()] if match else name, int(match.group(1)) if match else -1, name)


def read_system(
    path: str | Path, root: str | Path | None = None, display: str | None = None
) -> SystemDescription:
    """The one reader of system descriptions; never raises. With ``root``, a description
    outside that tree is not read (``inputs.read_in_tree``: a regular file of bounded
    size, never a FIFO). What went wrong is ``unreadable``; the caller reports it."""
    shown = display or str(path)
    try:
        raw = read_in_tree(Path(path), Path(root) if root else None)
    except InputError as err:
        return SystemDescription(shown, unreadable=Unreadable("read", str(err)))
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except RecursionError as err:  # thousands of nested brackets
        return SystemDescription(shown, None, text, unreadable=Unreadable("nesting", str(err)))
    except json.JSONDecodeError as err:
        if keyed_lines.looks_keyed(text):  # v0.6-era `key: {json}` lines
            try:
                lines = keyed_lines.read(text)
            except keyed_lines.NotKeyedLines as bad:
                reason = f"`key: {{json}}` lines that cannot be read: {bad}"
                why = Unreadable("json", reason, err.msg, err.lineno, err.colno)
                return SystemDescription(shown, None, text, unreadable=why)
            return SystemDescription(shown, lines, text, form="keyed-lines")
        why = Unreadable("json", str(err), err.msg, err.lineno, err.colno)
        return SystemDescription(shown, None, text, unreadable=why)
    except ValueError as err:  # an integer of more digits than Python converts
        return SystemDescription(shown, None, text, unreadable=Unreadable("value", str(err)))
    if not isinstance(data, dict):
        why = Unreadable("not-object", type(data).__name__)
        return SystemDescription(shown, None, text, unreadable=why)
    return SystemDescription(shown, data, text)


def load_system(
    path: str | Path | None, root: str | Path | None = None
) -> tuple[SystemDescription, list[Problem]]:
    """A score's reading of a description (``read_system``): what cannot be read is
    MLR030, never an exception; no path is an empty description."""
    if path is None:
        return SystemDescription(), []
    desc = read_system(path, root)
    why = desc.unreadable
    if why is None:
        return desc, []
    if why.kind == "not-object":
        message = "system description is not a JSON object"
    else:
        message = f"system description unreadable: {why.reason}"
    problems = [_problem(str(path), message)]
    # Its values are those of no description, as before it was read.
    return SystemDescription(desc.path, None, desc.text, problems, why), problems


def _text(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _known(value: object) -> str | None:
    """Text, or None for the placeholders real descriptions hold ("N/A", "TODO")."""
    text = _text(value)
    if text is None or text.casefold() in ("n/a", "na", "todo", "tbd", "none", "-"):
        return None
    return text


def _lower(value: object) -> str | None:
    text = _text(value)
    return text.lower() if text else None


# A node or accelerator count a description may state: published ones reach 1,536 nodes
# and 1,024 accelerators per node; "1e19" or 1e308 crashed every table writer (int64,
# float) and is no count (docs/security.md).
COUNT_MAX = 1_000_000


def _number(value: object) -> int | None:
    """A count in [1, COUNT_MAX], else None ("TODO", "", "inf", "-8", "1e19": a
    description's text, not a count)."""
    try:
        number = int(float(str(value).strip()))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if 0 < number <= COUNT_MAX else None


def _problem(path: str, message: str) -> Problem:
    from .codes import SYSTEM_UNREADABLE

    return SYSTEM_UNREADABLE.problem(path, message)
