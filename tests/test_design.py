"""docs/design.md is the map of the code: its layers hold (no import circle, every arrow
back up named there) and it names every module."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "mllog_check"
DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
# docs/design.md, "Layers": each layer imports only the ones above it.
FIRST = ("values", "errors", "problems", "records", "catalog", "syntax_codes", "prepared",
         "datafiles", "rounds", "yamlsafe", "safety", "suggest", "extras", "outputs",
         "confusables", "lookalike", "selection", "resultcache")  # fmt: skip
LAYERS = {
    **dict.fromkeys(FIRST, 1),
    **dict.fromkeys(("inputs", "parsing"), 2),
    **dict.fromkeys(("rules", "checking"), 3),
    **dict.fromkeys(("results", "power", "follow"), 4),
    "cost": 5,
    **dict.fromkeys(("submission", "html_report"), 6),
    **dict.fromkeys(("reporters", "cli"), 7),
}
# The arrows back up docs/design.md names (importer, imported).
UPWARDS = {
    ("mllog_check.submission.audit", "mllog_check.reporters.tables"),
    ("mllog_check.checking", "mllog_check.submission.codes"),
    ("mllog_check.checking", "mllog_check.results.cadence"),
}


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules ``name`` imports, anywhere in it (inside functions too) but
    under ``if TYPE_CHECKING``; its own packages (imported with it anyway) left out."""
    base = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = base.split(".")
            stem = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (stem, node.module or "") if p)
            subs = {f"{module}.{a.name}" for a in node.names} & set(MODULES)
            found.update(subs or {module})
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    out = set()
    for module in found:
        while module and module not in MODULES:
            module = module.rpartition(".")[0]
        if module and module != name and not name.startswith(module + "."):
            out.add(module)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _reaches(start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        for nxt in GRAPH[todo.pop()] - seen:
            if nxt == goal:
                return True
            seen.add(nxt)
            todo.append(nxt)
    return False


def test_no_import_circle() -> None:
    circles = sorted((a, b) for a, bs in GRAPH.items() for b in bs if _reaches(b, a))
    assert circles == [], circles


def test_every_arrow_back_up_is_one_the_design_names() -> None:
    def layer(module: str) -> int:
        return LAYERS[module.split(".")[1]] if "." in module else 0

    up = {(a, b) for a, bs in GRAPH.items() for b in bs if layer(b) > layer(a) > 0}
    assert up == UPWARDS
    for importer, imported in UPWARDS:
        assert imported.removeprefix("mllog_check.") in DESIGN, imported
        assert importer.removeprefix("mllog_check.").replace(".", "/") + ".py" in DESIGN


def test_the_layers_name_every_top_level_module_and_package() -> None:
    tops = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert tops == set(LAYERS), tops ^ set(LAYERS)


def test_the_design_names_every_module() -> None:
    """Each module by its path (``results/scores.py``) or, in its package's row, its
    file name (``scores.py``) or its name in backquotes."""
    missing = []
    for path in MODULES.values():
        relative = path.relative_to(PACKAGE).as_posix()
        if path.name == "__init__.py":
            if relative != "__init__.py" and relative.removesuffix("__init__.py") not in DESIGN:
                missing.append(relative)
            continue
        stem = path.stem
        dotted = relative.removesuffix(".py").replace("/", ".")
        if not any(text in DESIGN for text in (relative, f"{stem}.py", f"`{stem}`", dotted)):
            missing.append(relative)
    assert missing == [], missing
