"""Result-tree discovery: paths -> result sets (org, system, benchmark, result files).

Accepts a results repository root (one folder per org, or one folder per round
holding orgs), an org folder, its ``results/`` folder, a system folder or a
system/benchmark folder. A result set is every folder that directly holds
``result_*.txt`` files; org and system come from the published layout
``<org>/results/<system>/<benchmark>/``, or MLPerf HPC's
``<org>/results/<system>/<strong|weak>/<benchmark>/`` (docs/hpc.md). Links leaving the
tree are never followed (``inputs.walk``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..inputs import InputError, read_in_tree, walk
from ..problems import Problem
from ..syntax_codes import INPUT_ERROR

_RESULT = re.compile(r"^result_.*\.txt(?:\.gz)?$")
# MLPerf HPC's scaling level between the system and the benchmark folder.
SCALINGS = ("strong", "weak")


@dataclass(frozen=True, slots=True)
class ResultSet:
    """One benchmark folder of one system: the unit a score is computed for."""

    org: str
    system: str
    benchmark: str
    folder: str
    files: tuple[str, ...]
    system_json: str | None  # path of <org>/systems/<system>.json when present
    scaling: str | None = None  # HPC: "strong" or "weak" (the folder level); None: Training
    # The tree every file of the set is read from: the folder named on the command
    # line, or the org folder above it (docs/security.md: nothing outside is read).
    root: str = ""


@dataclass(frozen=True, slots=True)
class SystemDescription:
    """What a score needs from ``systems/<system>.json`` (values are strings there)."""

    system_name: str | None = None
    status: str | None = None
    division: str | None = None
    accelerators: int | None = None
    submitter: str | None = None
    # What comparisons name (docs/scores.md, "Hardware columns"): the accelerator as the
    # description writes it, the node count, the host CPU and the accelerator links.
    accelerator_model: str | None = None
    nodes: int | None = None
    host: str | None = None
    interconnect: str | None = None


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
    results_dir = system_dir.parent
    # <org>/results/<system>/<benchmark>: anything else keeps the folder names we have.
    org_dir = results_dir.parent if results_dir.name == "results" else results_dir
    system_json = org_dir / "systems" / f"{system_dir.name}.json"
    ordered = sorted({str(f) for f in files}, key=_natural)
    return ResultSet(
        org=org_dir.name,
        system=system_dir.name,
        benchmark=folder.name,
        folder=str(folder),
        files=tuple(ordered),
        # Present at all (a FIFO, a link leaving the tree): load_system says why not read.
        system_json=str(system_json) if os.path.lexists(system_json) else None,
        scaling=scaling,
        root=str(_tree_root(given, org_dir)),
    )


def _tree_root(given: Path, org_dir: Path) -> Path:
    """The org folder when the named folder lies below it (its systems/ belong to the
    tree), else the named folder."""
    real = given.resolve()
    return org_dir if real == org_dir or org_dir in real.parents else real


def _natural(name: str) -> tuple[str, int, str]:
    """result_2 before result_10."""
    match = re.search(r"result_(\d+)", name)
    return (name[: match.start()] if match else name, int(match.group(1)) if match else -1, name)


def load_system(
    path: str | None, root: str | None = None
) -> tuple[SystemDescription, list[Problem]]:
    """Lenient loader: missing or invalid JSON is a problem, never an exception; with
    ``root``, a description outside that tree is not read (``inputs.read_in_tree``)."""
    if path is None:
        return SystemDescription(), []
    try:
        raw = read_in_tree(Path(path), Path(root) if root else None)
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (InputError, ValueError, RecursionError) as err:
        return SystemDescription(), [_problem(path, f"system description unreadable: {err}")]
    if not isinstance(data, dict):
        return SystemDescription(), [_problem(path, "system description is not a JSON object")]
    return (
        SystemDescription(
            system_name=_text(data.get("system_name")),
            status=_lower(data.get("status")),
            division=_division(data),
            accelerators=_accelerators(data),
            submitter=_text(data.get("submitter")),
            accelerator_model=_known(data.get("accelerator_model_name")),
            nodes=_number(data.get("number_of_nodes")),
            host=_known(data.get("host_processor_model_name")),
            interconnect=_known(data.get("accelerator_interconnect")),
        ),
        [],
    )


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


def _division(data: dict[str, object]) -> str | None:
    # Real files write "Closed" and (PCL v1.0) "close"; some v0.7 files misspell the key.
    value = _lower(data.get("division") or data.get("divison"))
    if value in ("close", "closed"):
        return "closed"
    return value


def _accelerators(data: dict[str, object]) -> int | None:
    nodes = _number(data.get("number_of_nodes"))
    per_node = _number(data.get("accelerators_per_node"))
    if nodes is None or per_node is None:
        return None
    return nodes * per_node


def _number(value: object) -> int | None:
    """A positive count, else None ("TODO", "", "inf", "-8": a description's text)."""
    try:
        number = int(float(str(value).strip()))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number > 0 else None


def _problem(path: str, message: str) -> Problem:
    from .codes import SYSTEM_UNREADABLE

    return SYSTEM_UNREADABLE.problem(path, message)
