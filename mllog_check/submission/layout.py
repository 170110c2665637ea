"""The folder layout of one submitter: <Org>/{results,systems,benchmarks}.

Only reads directory listings (never writes, never follows a link that leaves the
tree). Result files are ``results/<system>/<benchmark>/result_*.txt`` (MLPerf HPC:
``results/<system>/<strong|weak>/<benchmark>/``, docs/hpc.md); system descriptions
``systems/<system>.json`` (training_policies, "Submission").

``check_layout`` is the package checker's pass over the prescribed layout: every entry
it lists is a result set, a system description or a layout problem (``MLP``). Its
result sets are the tree model's (``results.tree.ResultSet``, made by
``results.tree.result_set`` as ``score``'s are), with what only the official package
checker counts: plain ``result_*.txt`` in its file order, the power folder, whether the
benchmark is the round's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ReadError
from ..inputs import InputError, read_in_tree, walk_tree
from ..problems import Problem
from ..results.tree import SCALINGS, ResultSet, is_org_folder, result_set
from ..rounds import Round, all_rounds
from ..suggest import did_you_mean
from . import codes

# The official tools take result_*.txt (v2.0 HazyResearch: result_<job id>_<N>.txt).
RESULT_NAME = re.compile(r"^result_.+\.txt$")
_NUMBER = re.compile(r"(\d+)\.txt$")
# Files the tools themselves put in a benchmark folder (committee scaling factors, v2.0).
_KNOWN = frozenset({"scaling.json"})
# The official checker's per-folder options (rcp-bypass, seed-checker-bypass).
PARAMS = "package_checker_params"
# results/<system>/privateid.json: the result summarizer's private system id (v5.0+).
_SYSTEM_FILES = frozenset({"privateid.json"})
_V05_ENTRY = "entry.json"  # v0.5's system description, beside the benchmark folders
# Energy measurements beside the results (results/<s>/<b>/power/result_N/), in the
# rounds of the registry's `power_folder` policy (v4.0 on).
POWER = "power"
_TOP_DIRS = frozenset({"results", "systems", "benchmarks"})
_TOP_DOCS = re.compile(r"^(readme|license|notice)(\.\w+)?$", re.IGNORECASE)
# Editor and OS debris, wherever it sits (vim swap, emacs backup, macOS).
_JUNK = re.compile(r"(^\..*\.sw[a-p]$)|(~$)|(^\.DS_Store$)|(^#.*#$)", re.IGNORECASE)
# Logs the official tools write (package_checker.log, system_desc_checker.log, ...).
_CHECKER_LOG = re.compile(r"(checker|summarizer|compliance).*\.(log|txt)$", re.IGNORECASE)


class NotASubmission(ReadError):
    """ORG_DIR is not a submitter's folder (missing, unreadable, no results/)."""


@dataclass
class OrgLayout:
    root: Path
    org: str
    systems: dict[str, Path] = field(default_factory=dict)
    result_sets: list[ResultSet] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Result files in folders nested in a benchmark folder: never checked, but the audit
    # hashes them (v1.0 Habana's resnet/bert/ holds copies of its bert/ logs).
    nested: list[tuple[ResultSet, Path]] = field(default_factory=list)


class _Lister:
    """Sorted directory listings that report links leaving the tree and unreadable folders."""

    def __init__(self, root: Path, problems: list[Problem]) -> None:
        self.real_root = root.resolve()
        self.problems = problems
        self.escaped: list[Path] = []  # links leaving the tree, not followed

    def entries(self, folder: Path) -> list[tuple[Path, bool]]:
        """(path, is_dir) of each entry kept, sorted by name."""
        try:
            names = sorted(os.listdir(folder))
        except OSError as err:
            reason = err.strerror or str(err)
            self.problems.append(codes.UNREADABLE.problem(str(folder), f"cannot list: {reason}"))
            return []
        kept = []
        for name in names:
            path = folder / name
            if path.is_symlink() and not self.inside(path):
                msg = "symbolic link leaves the checked tree: not followed"
                self.problems.append(codes.LINK_ESCAPE.problem(str(path), msg))
                self.escaped.append(path)
                continue
            kept.append((path, path.is_dir()))
        return kept

    def inside(self, path: Path) -> bool:
        try:
            target = path.resolve(strict=False)
        except (OSError, RuntimeError):
            return False
        return target == self.real_root or self.real_root in target.parents


def require_org(root: Path) -> None:
    """NotASubmission, saying why, unless ``root`` is an org folder (it has results/)."""
    if not root.exists():
        raise NotASubmission(f"{root}: no such folder")
    if not root.is_dir():
        raise NotASubmission(f"{root}: not a folder")
    if (root / "results").is_dir():
        return
    orgs = sorted(p.name for p in _subfolders(root) if is_org_folder(p))
    if orgs:  # a round folder (v5.1/, training_results_v5.1/): its orgs are the packages
        shown = ", ".join(orgs[:3]) + (", ..." if len(orgs) > 3 else "")
        raise NotASubmission(
            f"{root}: a folder of {len(orgs)} org folders ({shown}), not one org: "
            f"`mllog-check audit {root}` checks them all, `mllog-check package "
            f"{root / orgs[0]}` one of them"
        )
    raise NotASubmission(f"{root}: no results/ folder (expected <Org>/results/<system>/...)")


def _subfolders(root: Path) -> list[Path]:
    try:
        return [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


def check_layout(root: Path, rnd: Round) -> OrgLayout:
    """The layout of one org folder (its systems, result sets and layout problems);
    raises NotASubmission when there is nothing to check."""
    require_org(root)
    layout = OrgLayout(root=root, org=root.resolve().name)
    lister = _Lister(root, layout.problems)
    for path, is_dir in lister.entries(root):
        if path.name in _TOP_DIRS and is_dir:
            continue
        if not is_dir and _TOP_DOCS.match(path.name):
            continue
        _stray(layout, path, is_dir, "not part of a submission (results/, systems/, benchmarks/)")
    _systems(layout, lister)
    _results(layout, lister, rnd)
    _benchmarks(layout, lister)
    used = {rs.system for rs in layout.result_sets}
    for system, path in sorted(layout.systems.items()):
        if system not in used:
            msg = f"system description {system!r} has no results/{system} folder"
            layout.problems.append(codes.UNUSED_SYSDESC.problem(str(path), msg))
    return layout


def _stray(layout: OrgLayout, path: Path, is_dir: bool, why: str) -> None:
    what = "folder" if is_dir else "file"
    if _JUNK.search(path.name):
        why = "editor or system debris"
    layout.problems.append(codes.STRAY.problem(str(path), f"stray {what}: {why}"))


def _systems(layout: OrgLayout, lister: _Lister) -> None:
    folder = layout.root / "systems"
    if not folder.is_dir():
        return
    for path, is_dir in lister.entries(folder):
        if not is_dir and path.suffix == ".json" and not path.name.startswith("."):
            layout.systems[path.stem] = path
        else:
            _stray(layout, path, is_dir, "only <system>.json files belong in systems/")


def _results(layout: OrgLayout, lister: _Lister, rnd: Round) -> None:
    for system_dir, is_dir in lister.entries(layout.root / "results"):
        if not is_dir:
            _stray(layout, system_dir, False, "only <system> folders belong in results/")
            continue
        system = system_dir.name
        # v0.5 describes a system in results/<system>/entry.json (no systems/ folder, no
        # system-description schema, no package checker): described, not missing.
        v05_entry = not rnd.has("system_description") and (system_dir / _V05_ENTRY).is_file()
        if system not in layout.systems and not v05_entry:
            msg = f"no system description systems/{system}.json for results/{system}"
            layout.problems.append(codes.MISSING_SYSDESC.problem(str(system_dir), msg))
        if rnd.is_hpc and rnd.benchmarks and _scaled(lister, system_dir):
            _hpc_results(layout, lister, system_dir, rnd)
            continue
        for bench_dir, sub_is_dir in lister.entries(system_dir):
            if not sub_is_dir and bench_dir.name in _SYSTEM_FILES:
                continue
            if v05_entry and bench_dir.name == _V05_ENTRY:
                continue
            if not sub_is_dir:
                why = "only <benchmark> folders belong here"
                if RESULT_NAME.match(bench_dir.name):  # v0.7 Alibaba: no benchmark level
                    why = "a result file outside a <benchmark> folder is never checked"
                _stray(layout, bench_dir, False, why)
                continue
            layout.result_sets.append(_result_set(layout, lister, system, bench_dir, rnd))


def _scaled(lister: _Lister, system_dir: Path) -> bool:
    """Whether a system folder uses HPC's scaling level (v0.7 HPC has none)."""
    return any(is_dir and p.name in SCALINGS for p, is_dir in lister.entries(system_dir))


def _hpc_results(layout: OrgLayout, lister: _Lister, system_dir: Path, rnd: Round) -> None:
    for scaling_dir, is_dir in lister.entries(system_dir):
        if not is_dir and scaling_dir.name in _SYSTEM_FILES:
            continue
        if not is_dir or scaling_dir.name not in SCALINGS:
            _stray(layout, scaling_dir, is_dir, "only strong/ and weak/ belong here (HPC)")
            continue
        for bench_dir, sub_is_dir in lister.entries(scaling_dir):
            if not sub_is_dir:
                _stray(layout, bench_dir, False, "only <benchmark> folders belong here")
                continue
            rs = _result_set(layout, lister, system_dir.name, bench_dir, rnd, scaling_dir.name)
            layout.result_sets.append(rs)


def _result_set(
    layout: OrgLayout,
    lister: _Lister,
    system: str,
    folder: Path,
    rnd: Round,
    scaling: str | None = None,
) -> ResultSet:
    numbered: list[tuple[str, int, Path]] = []
    power: Path | None = None
    gzipped: list[Path] = []
    nested: list[Path] = []
    for path, is_dir in lister.entries(folder):
        match = RESULT_NAME.match(path.name)
        if is_dir and path.name == POWER and rnd.applies("power_folder"):
            power = path  # its content is the power checks' (MLE)
        elif is_dir:
            _stray(
                layout, path, True, "folder inside a benchmark folder: its files are not checked"
            )
            for inner, inner_is_dir in lister.entries(path):
                if not inner_is_dir and RESULT_NAME.match(inner.name):
                    nested.append(inner)
        elif match:
            number = _NUMBER.search(path.name)
            numbered.append(
                (path.name[:-4].rstrip("0123456789"), int(number.group(1)) if number else -1, path)
            )
        elif path.name in _KNOWN:
            continue
        elif path.name == PARAMS and not is_dir:
            _bypass_note(layout, path)
        elif path.name.endswith(".txt.gz") and RESULT_NAME.match(path.name[:-3]):
            # `check` reads it; the official package checker globs result_*.txt only.
            gzipped.append(path)
            msg = (
                "stray file: a gzip result log; the official package checker reads only "
                "plain result_*.txt, so this run is not counted: decompress it (gunzip) "
                "before upload"
            )
            layout.problems.append(codes.STRAY.problem(str(path), msg))
        elif _CHECKER_LOG.search(path.name):
            _stray(layout, path, False, "a checker's log, not a result file")
        elif path.suffix in (".txt", ".log") and not _JUNK.search(path.name):
            msg = "result files are named result_*.txt; this file is not scored"
            layout.problems.append(codes.BAD_RESULT_NAME.problem(str(path), msg))
        else:
            _stray(layout, path, False, "not a result file")
    files = [p for _, _, p in sorted(numbered)]  # result_2 before result_10
    # The official checker globs a result log that links out of the tree and counts it.
    linked = [p for p in lister.escaped if p.parent == folder and RESULT_NAME.match(p.name)]
    known = _check_benchmark(layout, folder, files, gzipped, scaling, rnd, len(linked))
    # The one way a result set is made (results.tree), with what this pass found.
    made = result_set(
        folder,
        files,
        layout.root,
        scaling=scaling,
        system_json=layout.systems.get(system),
        names=(layout.org, system),
        power=power,
        known=known,
        gzipped=tuple(gzipped),
    )
    layout.nested.extend((made, inner) for inner in nested)
    return made


def _bypass_note(layout: OrgLayout, path: Path) -> None:
    """The official checker bypasses RCP/seed checks for a line equal to the option."""
    try:
        lines = read_in_tree(path, None).decode("utf-8", errors="replace").splitlines()
    except InputError as err:
        msg = f"cannot read: {err}"
        layout.problems.append(codes.UNREADABLE.problem(str(path), msg))
        return
    asked = sorted({ln.strip() for ln in lines} & {"rcp-bypass", "seed-checker-bypass"})
    what = " and ".join(asked) if asked else "no known option"
    msg = f"{PARAMS} asks for {what}; judged without bypass (a committee decision)"
    layout.problems.append(codes.BYPASS_FILE.problem(str(path), msg))


def _check_benchmark(
    layout: OrgLayout,
    folder: Path,
    files: list[Path],
    gzipped: list[Path],
    scaling: str | None,
    rnd: Round,
    linked: int = 0,
) -> bool:
    """MLP005 and MLP003 of one benchmark folder; whether it is a benchmark of the round.
    ``linked``: result logs that are links leaving the tree (MLP007), which the official
    checker counts."""
    runs = rnd.runs()
    benchmark = folder.name
    wanted = runs.get(benchmark)
    if wanted is None:
        known = ", ".join(sorted(runs))
        hint = did_you_mean(benchmark, runs)
        msg = (
            f"{benchmark!r} is not a benchmark of {rnd.folder}{hint} (known: {known}): "
            "its logs are not checked, as by the official checker"
        )
        layout.problems.append(codes.UNKNOWN_BENCHMARK.problem(str(folder), msg))
        return False
    found = len(files) + linked
    if scaling == "weak":  # HPC weak scaling: at least N models (the official checker)
        if found < wanted:
            msg = (
                f"{found} result files for weak-scaling {benchmark}; the {rnd.folder} "
                f"package checker requires at least {wanted}"
            )
            layout.problems.append(codes.RUN_COUNT.problem(str(folder), msg))
        return True
    # The official package checker wants exactly N result_*.txt in every round ("must be
    # an exact number"); the scoring data's minimum from v1.1 is the summarizer's, which
    # scores a folder with more runs (`score` follows it).
    if found == wanted:
        return True
    scored = "" if rnd.exact_runs or found < wanted else f" (the summarizer scores {found})"
    gz = f" ({len(gzipped)} gzip logs not counted)" if gzipped else ""
    msg = (
        f"{found} result files for {benchmark}{gz}; the {rnd.folder} package checker "
        f"requires exactly {wanted}{scored}"
    )
    layout.problems.append(codes.RUN_COUNT.problem(str(folder), msg))
    return True


def _benchmarks(layout: OrgLayout, lister: _Lister) -> None:
    """Code folders: only debris and links leaving the tree are reported."""
    folder = layout.root / "benchmarks"
    if not folder.is_dir():
        return
    # Without recursion: a code tree 1,100 folders deep made os.walk raise RecursionError,
    # and the audit lost the whole org (docs/security.md).
    for dirpath, dirnames, filenames in walk_tree(folder, lambda err: None):
        dirnames.sort()
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            path = here / name
            if path.is_symlink() and not lister.inside(path):
                msg = "symbolic link leaves the checked tree: not followed"
                layout.problems.append(codes.LINK_ESCAPE.problem(str(path), msg))
            elif name in filenames and _JUNK.search(name):
                _stray(layout, path, False, "editor or system debris")


def benchmark_matches(folder: str, declared: object) -> bool:
    if not isinstance(declared, str):
        return False
    return declared.strip().lower() in _names_of(folder)


def _names_of(folder: str) -> frozenset[str]:
    """Every name a benchmark folder's logs may declare: the folder's and, from the round
    registry, the other names of that benchmark (v2.0 RetinaNet in `ssd`, v0.6 `mask`)."""
    names = {folder}
    for rnd in all_rounds():
        bench = rnd.benchmark(folder)
        if bench is not None:
            names.update(bench.all_names)
    return frozenset(names)
