"""Names that hold line feeds (docs/security.md, "Output is inert"): no command's human
output (stdout and stderr) shows a line that a name forged.

An org folder named ``Evil\\nPASS AMD ...`` printed its lines in a failing package
run; a log named ``result_0\\nFORGED.txt`` in check's per-file verdict. Every value
goes into a human line through ``safety.human``; the lint below holds every writer to it.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.corpus

SOURCE = "v5.0/GigaComputing"
SYSTEM = "G893-SD1_pytorch"
BENCH = "llama2_70b_lora"
# What a line starting with the marker would claim.
ORG = "Evil\nFORGED PASS AMD (5.0.0): 0 errors, 0 warnings\nFORGED official verdict: PASS"
LOG = "result_0\nFORGED pass (closed llama2_70b_lora, 5.0.0).txt"
MARKER = "FORGED"


@pytest.fixture(scope="module")
def hostile_round(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """<tmp>/v5.0/<ORG>: one published system and benchmark under a forging org name,
    and a log copied under a forging file name beside the org."""
    top = tmp_path_factory.mktemp("names") / "v5.0"
    org = top / ORG
    (org / "systems").mkdir(parents=True)
    shutil.copyfile(
        corpus / SOURCE / "systems" / f"{SYSTEM}.json", org / "systems" / f"{SYSTEM}.json"
    )
    source = corpus / SOURCE / "results" / SYSTEM / BENCH
    shutil.copytree(source, org / "results" / SYSTEM / BENCH)
    for path in org.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    # Too few runs: the score is invalid, and the tables' notes name the org.
    for extra in sorted((org / "results" / SYSTEM / BENCH).glob("result_*.txt"))[5:]:
        extra.unlink()
    logs = top.parent / "logs"
    logs.mkdir()
    # A failing log: check prints its problems and its verdict line.
    text = (source / "result_0.txt").read_text("utf-8")
    (logs / LOG).write_text(":::MLLOG {broken\n" + text, "utf-8")
    return top


def _main(args: list[str], cwd: Path) -> tuple[int, str]:
    code = f"import sys; from mllog_check.cli import main; main({args!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout.decode("utf-8") + done.stderr.decode("utf-8")


def _prices(tmp: Path) -> Path:
    catalog = tmp / "prices.csv"
    catalog.write_text(
        "system,aliases,price,currency,kind,includes,source,date\n"
        f"Giga,{SYSTEM},100000,USD,list,accelerators,https://example.invalid,2025-01-01\n",
        "utf-8",
    )
    return catalog


def _commands(top: Path, tmp: Path) -> dict[str, list[str]]:
    org, log = str(top / ORG), str(top.parent / "logs" / LOG)
    five = ["--ruleset", "5.0.0"]
    return {
        "check": ["check", *five, log],
        "check -v": ["check", "-v", log],
        "check --follow": ["check", "--follow", "--until", "run_stop", *five, log],
        "parse": ["parse", log],
        "package": ["package", *five, org],
        "package -v": ["package", "-v", org],
        "audit": ["audit", "-j1", *five, "--out", str(tmp / "audit"), str(top)],
        "score": ["score", *five, org],
        "cost": ["cost", *five, "--prices", str(_prices(tmp)), org],
        "report": ["report", "-j1", *five, "--out", str(tmp / "report.html"), str(top)],
        "trends": ["trends", str(top)],
        "hparams": ["hparams", *five, org],
        "summarize": ["summarize", *five, "--csv", str(tmp / "summary.csv"), org],
    }


@pytest.mark.parametrize(
    "command",
    [
        "check",
        "check -v",
        "check --follow",
        "parse",
        "package",
        "package -v",
        "audit",
        "score",
        "cost",
        "report",
        "trends",
        "hparams",
        "summarize",
    ],
)
def test_no_command_prints_a_line_a_name_forged(
    hostile_round: Path, tmp_path: Path, command: str
) -> None:
    _code, text = _main(_commands(hostile_round, tmp_path)[command], tmp_path)
    assert "Traceback" not in text, text
    forged = [line for line in text.splitlines() if line.lstrip().startswith(MARKER)]
    assert not forged, text
    if command not in ("report", "summarize"):  # these name files written, not the org
        assert "\\nFORGED" in text, text  # the name is shown, escaped


def test_package_and_audit_verdicts_keep_the_org_on_one_line(
    hostile_round: Path, tmp_path: Path
) -> None:
    _code, text = _main(_commands(hostile_round, tmp_path)["package"], tmp_path)
    verdicts = [ln for ln in text.splitlines() if ln.startswith(("PASS ", "FAIL "))]
    assert len(verdicts) == 1 and verdicts[0].startswith("FAIL Evil\\nFORGED"), text
    _code, text = _main(_commands(hostile_round, tmp_path)["audit"], tmp_path)
    assert [ln for ln in text.splitlines() if ln.startswith("FAIL Evil\\nFORGED")], text
    assert not [ln for ln in text.splitlines() if ln.startswith("PASS")], text


# -- the lint: every human writer interpolates through safety.human -----------------

ROOT = Path(__file__).resolve().parent.parent / "mllog_check"
HUMAN = [*sorted((ROOT / "cli").glob("*.py")), ROOT / "reporters" / "text.py"]
HUMAN += [ROOT / "reporters" / "summary.py", ROOT / "reporters" / "tables.py"]
SINKS = {"write", "echo", "secho", "print"}
# Writers of machine formats (their own escaping: GitHub's, JSON's, XML's).
MACHINE = ("github", "json", "junit")


def _formatted_writes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef) or any(m in func.name for m in MACHINE):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            first = node.args[0]
            if name not in SINKS:
                continue
            # An f-string as the line, or as a part of it ("..." + f"...").
            parts = [first, *(ast.walk(first) if isinstance(first, ast.BinOp) else ())]
            if any(
                isinstance(part, ast.JoinedStr)
                and any(isinstance(v, ast.FormattedValue) for v in part.values)
                for part in parts
            ):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(first, ast.Call) and getattr(first.func, "attr", "") == "format":
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_human_writers_interpolate_only_through_safety_human() -> None:
    found = [site for path in HUMAN for site in _formatted_writes(path)]
    assert not found, f"write safety.human(template, values), not an f-string: {found}"


def test_the_lint_finds_an_f_string(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        'def text(out, org):\n    out.write(f"PASS {org}\\n")\n    out.write("x" + f"{org}")\n',
        "utf-8",
    )
    assert _formatted_writes(bad) == ["bad.py:2", "bad.py:3"]


def test_human_escapes_every_value_and_keeps_formats() -> None:
    from mllog_check.safety import human

    line = human("{} {:.2f} {name}\n", "a\nb\x1b", 1.234, name="\u202e")
    assert line == "a\\nb\\x1b 1.23 \\u202e\n"
    assert json.loads(json.dumps(line)) == line
